package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import io.etcd.jetcd.ByteSequence;
import org.junit.jupiter.api.Test;

/** The etcd backend's memory of the values it wrote for its grants (ADR 0227). */
class KnownGrantsTest {

  private static final SessionId SESSION = SessionId.of("694d9a0b1c2d3e4f");
  private static final ByteSequence VALUE = ByteSequence.from(new byte[] {1, 2, 3});

  @Test
  void aGrantIsFoundByItsKeyAndTokenOnlyAndGoneOnceForgotten() {
    KnownGrants grants = new KnownGrants();
    LockKey key = LockKey.of("payout:acc-1");
    grants.remember(key, new FencingToken(7), SESSION, VALUE);

    assertThat(grants.get(key, new FencingToken(7)))
        .isEqualTo(new KnownGrants.Written(SESSION, VALUE));
    assertThat(grants.get(key, new FencingToken(8))).isNull();
    assertThat(grants.get(LockKey.of("payout:acc-2"), new FencingToken(7))).isNull();

    grants.forget(key, new FencingToken(7));
    assertThat(grants.get(key, new FencingToken(7))).isNull();
    assertThat(grants.size()).isZero();
  }

  @Test
  void whenFullItStartsOverInsteadOfGrowing() {
    KnownGrants grants = new KnownGrants();
    LockKey key = LockKey.of("payout:acc-1");
    for (int token = 1; token <= KnownGrants.MAX_ENTRIES; token++) {
      grants.remember(key, new FencingToken(token), SESSION, VALUE);
    }
    assertThat(grants.size()).isEqualTo(KnownGrants.MAX_ENTRIES);

    grants.remember(key, new FencingToken(KnownGrants.MAX_ENTRIES + 1L), SESSION, VALUE);

    assertThat(grants.size()).isOne();
    assertThat(grants.get(key, new FencingToken(1))).isNull();
  }
}
