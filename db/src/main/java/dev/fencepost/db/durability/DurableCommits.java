package dev.fencepost.db.durability;

import com.zaxxer.hikari.HikariConfig;
import java.util.Properties;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Whether this application's commits must be durable, {@code fencepost.db.*}. By default every
 * session of every PostgreSQL pool runs with {@code synchronous_commit=on}, whatever the server's
 * own setting: a commit returns only once its WAL is flushed, so a crash of the database cannot
 * take back an intent, a fence advance, a high-water or a ledger posting that a guard or a worker
 * has already acted on (decision record 0156).
 *
 * <p>The setting travels as the startup parameter {@code options=-c synchronous_commit=on}, so it
 * holds for every session however it was opened; a server set to {@code off} (embedded PostgreSQL's
 * library default, or a mistaken parameter group) cannot make this application's commits
 * asynchronous.
 */
@ConfigurationProperties("fencepost.db")
public class DurableCommits {

  /** The startup option every session gets unless asynchronous commits are allowed. */
  static final String SYNCHRONOUS_COMMIT_ON = "-c synchronous_commit=on";

  /**
   * Leave {@code synchronous_commit} to the server, which may have it off: only for a benchmark
   * that measures what durable commits cost (the local platform's {@code --synchronous-commit
   * off}). A crash of the database may then lose commits that returned. Logged at start as {@code
   * db.asynchronous_commit_allowed} (WARN).
   */
  private boolean allowAsynchronousCommit = false;

  public boolean isAllowAsynchronousCommit() {
    return allowAsynchronousCommit;
  }

  public void setAllowAsynchronousCommit(boolean allowAsynchronousCommit) {
    this.allowAsynchronousCommit = allowAsynchronousCommit;
  }

  /**
   * Makes every session of {@code pool} commit durably, unless asynchronous commits are allowed.
   */
  public void applyTo(HikariConfig pool) {
    if (allowAsynchronousCommit) {
      return;
    }
    Properties properties = pool.getDataSourceProperties();
    Object existing = properties.get("options");
    pool.addDataSourceProperty(
        "options",
        existing == null || existing.toString().isBlank()
            ? SYNCHRONOUS_COMMIT_ON
            : existing + " " + SYNCHRONOUS_COMMIT_ON);
  }
}
