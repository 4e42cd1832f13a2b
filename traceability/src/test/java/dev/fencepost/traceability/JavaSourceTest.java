package dev.fencepost.traceability;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Reading tags from Java text: what each one annotates, and what is not a tag at all. */
class JavaSourceTest {

  @Test
  void classAndMethodTagsAreToldApart() {
    String source =
        """
        @Tag("INV-02")
        @ExtendWith(Some.class)
        final class PayoutTest {
          @Test
          @DisplayName("a (tricky) name")
          @Tag(value = "UC-01")
          void executesOnce(@TempDir Path dir) {}

          @Nested
          @Tag("FR-14")
          class WhenRacing {}
        }
        """;

    assertThat(JavaSource.tags(source))
        .containsExactly(
            new JavaSource.Tagged("INV-02", "PayoutTest", null),
            new JavaSource.Tagged("UC-01", null, "executesOnce"),
            new JavaSource.Tagged("FR-14", "WhenRacing", null));
  }

  @Test
  void tagsInCommentsAreNotTagsButTagsInStringsStayVisible() {
    String source =
        """
        /** Cites @Tag("INV-01") in Javadoc. */
        class A {
          // @Tag("INV-03")
          /* @Tag("INV-04") */
          String url = "http://example.org/*not a comment*/";
          @Tag("INV-05") void real() {}
        }
        """;

    assertThat(JavaSource.tags(source))
        .containsExactly(new JavaSource.Tagged("INV-05", null, "real"));
  }
}
