package dev.fencepost.deploy.terraform;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Terraform is formatted as {@code terraform fmt} writes it (the CLI itself decides). */
class TerraformFormatTest {

  @Test
  void everyFileIsFormattedAsTerraformFmtWritesIt() {
    TerraformFiles.Result result = TerraformFiles.fmtCheck(TerraformFiles.root());

    assertThat(result.exitCode())
        .as("terraform fmt -check -recursive -diff:\n%s", result.output())
        .isZero();
  }

  @Test
  void aMisformattedFileFailsTheCheckAndIsNamed(@TempDir Path temp) throws Exception {
    Path copy = TerraformFiles.copy(TerraformFiles.root(), temp.resolve("terraform"));
    Path file = copy.resolve("modules/cloud-sql-postgres/main.tf");
    String text = Files.readString(file);
    Files.writeString(
        file,
        text.replace(
            "availability_type           = \"REGIONAL\"", "availability_type = \"REGIONAL\""));
    assertThat(Files.readString(file)).isNotEqualTo(text);

    TerraformFiles.Result result = TerraformFiles.fmtCheck(copy);

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.output()).contains("cloud-sql-postgres").contains("availability_type");
  }

  /**
   * hcl4j accepts an unclosed block (it returns what it read so far): the syntax of every file is
   * therefore also the CLI's to judge, and this shows that it does.
   */
  @Test
  void anUnclosedBlockThatHcl4jAcceptsIsRefusedByTerraformFmt(@TempDir Path temp) throws Exception {
    Path copy = TerraformFiles.copy(TerraformFiles.root(), temp.resolve("terraform"));
    Path file = copy.resolve("modules/network/main.tf");
    Files.writeString(
        file, Files.readString(file) + "\nresource \"google_compute_network\" \"open\" {\n");
    assertThat(TerraformTree.load(copy).parseFailures()).isEmpty();

    TerraformFiles.Result result = TerraformFiles.fmtCheck(copy);

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.output()).contains("network/main.tf");
  }
}
