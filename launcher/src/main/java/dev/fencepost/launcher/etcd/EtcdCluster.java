package dev.fencepost.launcher.etcd;

import dev.fencepost.launcher.DataDirectories;
import dev.fencepost.launcher.LocalTls;
import dev.fencepost.launcher.process.JavaProcess;
import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.auth.Permission;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcd.jetcd.options.OptionsUtil;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;

/**
 * A real etcd cluster of one or more members, each a process of Debian's {@code etcd} binary on
 * free loopback ports with its own temporary data directory: the tests' clusters and the local
 * platform's etcd.
 *
 * <pre>{@code
 * try (EtcdCluster cluster = EtcdCluster.builder().members(3).start()) {
 *   EtcdMember leader = cluster.awaitLeader();
 *   leader.kill();
 *   EtcdMember next = cluster.awaitLeader();
 *   leader.restart();
 * }
 * }</pre>
 *
 * <p>Settings every member runs with, and why:
 *
 * <ul>
 *   <li>{@code --auto-compaction-retention=0}: compaction off. Debian's 3.4.23 has compaction bugs
 *       fixed later, and nothing in a test run needs old revisions reclaimed.
 *   <li>{@code --heartbeat-interval} / {@code --election-timeout}: 100 ms / 1000 ms by default, so
 *       a leader failure is detected in about a second. etcd's smallest lease TTL is derived from
 *       them (1.5 election timeouts, rounded up to whole seconds: 2 s here); see {@link
 *       #minimumLeaseTtl()}.
 *   <li>{@code --pre-vote=true}: a member that was paused or restarted asks before it campaigns, so
 *       rejoining does not depose a healthy leader. Production runs it too.
 * </ul>
 *
 * <p>Secured mode ({@link Builder#tls()}, {@link Builder#authentication(String)}; ADR 0158): the
 * cluster gets a CA of its own ({@link LocalTls}, in its directory), every member serves TLS on its
 * client and peer ports and requires a client certificate from that CA on both ({@code
 * --client-cert-auth}, {@code --peer-client-cert-auth}); client URLs become {@code https://}. With
 * authentication the cluster creates {@code root} and the lock server's user, whose role may read
 * and write only the given key prefix, then enables etcd's authentication; the launcher itself
 * administers the cluster as {@code root}, by a random password only it knows. Every client
 * presents the same client certificate, whose subject names no etcd user: etcd would take a
 * verified certificate's common name as the user of a request that carries no token, so this one
 * opens the connection but reaches no key. Identity is the password user alone.
 *
 * <p>Every process dies with the JVM that started it (shutdown hook plus a watchdog); {@link
 * #close()} kills the members and deletes their directories.
 */
public final class EtcdCluster implements AutoCloseable {

  private static final Duration STATUS_TIMEOUT = Duration.ofMillis(750);

  /** The lock server's etcd user, and the name of its role. */
  public static final String LOCK_SERVER_USER = "fencepost-lock-server";

  /** The subject of the client certificate every non-root client of a secured cluster presents. */
  public static final String CLIENT_CERTIFICATE_NAME = "fencepost-etcd-client";

  private static final String ROOT = "root";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path root;
  private final List<EtcdMember> members = new ArrayList<>();
  private final Duration heartbeatInterval;
  private final Duration electionTimeout;
  private final Duration startTimeout;
  private final String clusterToken = "fencepost-test-" + UUID.randomUUID();
  private volatile Client statusClient;
  private final LocalTls tls;
  private final LocalTls.IssuedCertificate memberCertificate;
  private final LocalTls.IssuedCertificate clientCertificate;
  private final String lockServerKeyPrefix;
  private final Duration authTokenTtl;
  private EtcdCredentials lockServerCredentials;
  private volatile String rootPassword;
  private boolean closed;

  private EtcdCluster(Builder builder) {
    this.heartbeatInterval = builder.heartbeatInterval;
    this.electionTimeout = builder.electionTimeout;
    this.startTimeout = builder.startTimeout;
    EtcdBinary.locate();
    try {
      this.root = Files.createTempDirectory("fencepost-etcd-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.lockServerKeyPrefix = builder.lockServerKeyPrefix;
    this.authTokenTtl = builder.authTokenTtl;
    if (builder.tls) {
      this.tls = LocalTls.generate(root.resolve("tls"));
      this.memberCertificate = tls.issuePeerCertificate("etcd-member", "etcd-member");
      this.clientCertificate = tls.issueClientCertificate("etcd-client", CLIENT_CERTIFICATE_NAME);
    } else {
      this.tls = null;
      this.memberCertificate = null;
      this.clientCertificate = null;
    }
    int[] ports = freePorts(2 * builder.members);
    for (int i = 0; i < builder.members; i++) {
      String name = "m" + i;
      members.add(
          new EtcdMember(
              this,
              name,
              ports[2 * i],
              ports[2 * i + 1],
              root.resolve(name + ".etcd"),
              root.resolve(name + ".log"),
              builder.tls));
    }
    // Status calls must never hang on a dead or frozen member: no wait-for-ready, and a gRPC
    // deadline on every call.
    this.statusClient = newStatusClient();
  }

  private Client newStatusClient() {
    return adminBuilder()
        .waitForReady(false)
        .connectTimeout(STATUS_TIMEOUT)
        .interceptor(deadline(STATUS_TIMEOUT))
        .build();
  }

  /**
   * A client builder over every member that administers the cluster: plain; in secured mode over
   * TLS with the cluster's client certificate, and as {@code root} once authentication is on.
   */
  private ClientBuilder adminBuilder() {
    ClientBuilder builder =
        Client.builder()
            .endpoints(members.stream().map(EtcdMember::clientUrl).toArray(String[]::new));
    if (tls == null) {
      return builder;
    }
    try {
      builder.sslContext(
          ssl ->
              ssl.trustManager(tls.caFile().toFile())
                  .keyManager(
                      clientCertificate.certificateFile().toFile(),
                      clientCertificate.privateKeyFile().toFile()));
    } catch (SSLException e) {
      throw new IllegalStateException("could not load the cluster's client certificate", e);
    }
    String password = rootPassword;
    return password == null ? builder : builder.user(bytes(ROOT)).password(bytes(password));
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A started single-member cluster with default timings. */
  public static EtcdCluster single() {
    return builder().members(1).start();
  }

  /** The members in start order. */
  public List<EtcdMember> members() {
    return List.copyOf(members);
  }

  public EtcdMember member(int index) {
    return members.get(index);
  }

  /**
   * Every member's client URL, comma separated: what {@code fencepost.lock.etcd.endpoints} takes.
   */
  public String endpoints() {
    return members.stream().map(EtcdMember::clientUrl).collect(Collectors.joining(","));
  }

  /** True when the members serve TLS and require client certificates. */
  public boolean isTls() {
    return tls != null;
  }

  /** True when etcd's authentication is enabled (and the lock server's user exists). */
  public boolean isAuthenticationEnabled() {
    return lockServerCredentials != null;
  }

  /** The CA that signed the members' certificates; a client trusts it to reach a TLS cluster. */
  public Path caFile() {
    return requireTls().caFile();
  }

  /** The client certificate (subject {@value #CLIENT_CERTIFICATE_NAME}, no etcd user). */
  public LocalTls.IssuedCertificate clientCertificate() {
    requireTls();
    return clientCertificate;
  }

  /**
   * The run's local TLS of this cluster, to issue further certificates from its CA (for example one
   * whose subject is an etcd user).
   */
  public LocalTls localTls() {
    return requireTls();
  }

  /**
   * The lock server's credentials: CA, client certificate, user {@value #LOCK_SERVER_USER} with
   * read and write on the key prefix given to {@link Builder#authentication(String)} only.
   */
  public EtcdCredentials lockServerCredentials() {
    if (lockServerCredentials == null) {
      throw new IllegalStateException("this cluster runs without authentication");
    }
    return lockServerCredentials;
  }

  /**
   * Creates a user with a fresh random password and a role of the same name that may read and write
   * exactly the given key prefixes (none: a user who may touch no key), and returns its credentials
   * (the cluster's client certificate). Needs authentication.
   */
  public EtcdCredentials addUser(String user, String... readWritePrefixes) {
    lockServerCredentials();
    try (Client admin = adminBuilder().build()) {
      return createUser(admin.getAuthClient(), user, List.of(readWritePrefixes));
    }
  }

  /**
   * Sets {@code credentials}' user's password again, to the same value: etcd forgets every token it
   * issued to that user, as a password rotation does, so the user's clients must fetch a new one.
   */
  public void invalidateTokens(EtcdCredentials credentials) {
    lockServerCredentials();
    try (Client admin = adminBuilder().build()) {
      await(
          admin
              .getAuthClient()
              .userChangePassword(bytes(credentials.user()), bytes(credentials.password())),
          "set the password of " + credentials.user() + " again");
    }
  }

  /**
   * A new client that administers the cluster (as {@code root} in secured mode); the caller closes
   * it. For tests that inspect or prepare what the lock server's user may not touch.
   */
  public Client adminClient() {
    return adminBuilder().build();
  }

  /** The election timeout every member runs with. */
  public Duration electionTimeout() {
    return electionTimeout;
  }

  public Duration heartbeatInterval() {
    return heartbeatInterval;
  }

  /**
   * The shortest lease TTL these members grant: etcd raises any shorter request to 1.5 election
   * timeouts rounded up to whole seconds (its {@code minLeaseTTL}).
   */
  public Duration minimumLeaseTtl() {
    long millis = electionTimeout.toMillis() * 3 / 2;
    return Duration.ofSeconds((millis + 999) / 1000);
  }

  Duration startTimeout() {
    return startTimeout;
  }

  /**
   * The member that currently leads, as the running, unpaused members report it, or empty while
   * none does (for example during an election). Among several self-declared leaders (a resumed old
   * leader that has not yet heard of the new term) the one with the highest term wins.
   */
  public Optional<EtcdMember> leader() {
    record Report(EtcdMember member, long term) {}
    List<Report> leaders = new ArrayList<>();
    for (EtcdMember member : members) {
      if (!member.isRunning() || member.isPaused()) {
        continue;
      }
      status(member)
          .filter(s -> s.getLeader() != 0 && s.getLeader() == s.getHeader().getMemberId())
          .ifPresent(s -> leaders.add(new Report(member, s.getRaftTerm())));
    }
    return leaders.stream().max(Comparator.comparingLong(Report::term)).map(Report::member);
  }

  /** Waits (up to the start timeout) until a leader is elected and returns it. */
  public EtcdMember awaitLeader() {
    return awaitLeader(startTimeout);
  }

  /** Waits up to {@code timeout} until a leader is elected and returns it. */
  public EtcdMember awaitLeader(Duration timeout) {
    return poll("a leader among " + members, timeout, this::leader);
  }

  /** Waits until a leader other than {@code previous} leads. */
  public EtcdMember awaitNewLeader(EtcdMember previous, Duration timeout) {
    return poll(
        "a leader other than " + previous, timeout, () -> leader().filter(m -> m != previous));
  }

  /** Waits until {@code member} answers and follows a leader other than itself. */
  public void awaitFollowing(EtcdMember member, Duration timeout) {
    poll(
        member + " following another leader",
        timeout,
        () ->
            status(member)
                .filter(s -> s.getLeader() != 0 && s.getLeader() != s.getHeader().getMemberId()));
  }

  /** The status of one member, or empty if it does not answer within a short deadline. */
  public Optional<StatusResponse> status(EtcdMember member) {
    try {
      return Optional.of(
          statusClient
              .getMaintenanceClient()
              .statusMember(member.clientUrl())
              .get(STATUS_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS));
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** Kills every member and deletes the data directories and logs. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      members.forEach(EtcdMember::stop);
    } finally {
      statusClient.close();
      DataDirectories.delete(root);
    }
  }

  synchronized void startMember(EtcdMember member) {
    if (closed) {
      throw new IllegalStateException("the cluster is closed");
    }
    member.start(clusterFlags());
  }

  /** Waits until {@code member} answers and knows a leader. */
  void awaitServing(EtcdMember member, Duration timeout) {
    poll(
        member + " serving with a leader",
        timeout,
        () -> {
          if (!member.isRunning()) {
            throw new IllegalStateException(
                member + " exited during start; its log ends with:\n" + logTail(member));
          }
          return status(member).filter(s -> s.getLeader() != 0);
        });
  }

  private EtcdCluster startAll() {
    members.forEach(this::startMember);
    try {
      for (EtcdMember member : members) {
        awaitServing(member, startTimeout);
      }
      awaitLeader(startTimeout);
      if (lockServerKeyPrefix != null) {
        enableAuthentication();
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    return this;
  }

  /**
   * Creates {@code root} (a random password only this object knows) and the lock server's user with
   * a role limited to its key prefix, then enables authentication; from then on the cluster's own
   * clients authenticate as root.
   */
  private void enableAuthentication() {
    String password = randomPassword();
    try (Client admin = adminBuilder().build()) {
      Auth auth = admin.getAuthClient();
      await(auth.userAdd(bytes(ROOT), bytes(password)), "add user root");
      await(auth.roleAdd(bytes(ROOT)), "add role root");
      await(auth.userGrantRole(bytes(ROOT), bytes(ROOT)), "grant root the root role");
      EtcdCredentials lockServer = createUser(auth, LOCK_SERVER_USER, List.of(lockServerKeyPrefix));
      await(auth.authEnable(), "enable authentication");
      this.lockServerCredentials = lockServer;
    }
    this.rootPassword = password;
    Client unauthenticated = statusClient;
    statusClient = newStatusClient();
    unauthenticated.close();
  }

  private EtcdCredentials createUser(Auth auth, String user, List<String> prefixes) {
    String password = randomPassword();
    await(auth.userAdd(bytes(user), bytes(password)), "add user " + user);
    await(auth.roleAdd(bytes(user)), "add role " + user);
    for (String prefix : prefixes) {
      ByteSequence key = bytes(prefix);
      await(
          auth.roleGrantPermission(
              bytes(user), key, OptionsUtil.prefixEndOf(key), Permission.Type.READWRITE),
          "grant " + user + " read and write on " + prefix);
    }
    await(auth.userGrantRole(bytes(user), bytes(user)), "grant " + user + " its role");
    return new EtcdCredentials(
        tls.caFile(),
        clientCertificate.certificateFile(),
        clientCertificate.privateKeyFile(),
        user,
        password);
  }

  private <T> T await(java.util.concurrent.CompletableFuture<T> call, String what) {
    try {
      return call.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("etcd: could not " + what + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while etcd should " + what, e);
    }
  }

  private LocalTls requireTls() {
    if (tls == null) {
      throw new IllegalStateException("this cluster runs without TLS");
    }
    return tls;
  }

  private static ByteSequence bytes(String value) {
    return ByteSequence.from(value, StandardCharsets.UTF_8);
  }

  private static String randomPassword() {
    byte[] secret = new byte[24];
    RANDOM.nextBytes(secret);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
  }

  private List<String> clusterFlags() {
    String initialCluster =
        members.stream().map(m -> m.name() + "=" + m.peerUrl()).collect(Collectors.joining(","));
    List<String> flags = new ArrayList<>(baseFlags(initialCluster));
    if (tls != null) {
      String cert = memberCertificate.certificateFile().toAbsolutePath().toString();
      String key = memberCertificate.privateKeyFile().toAbsolutePath().toString();
      String ca = tls.caFile().toAbsolutePath().toString();
      flags.addAll(
          List.of(
              "--cert-file=" + cert,
              "--key-file=" + key,
              "--trusted-ca-file=" + ca,
              "--client-cert-auth=true",
              "--peer-cert-file=" + cert,
              "--peer-key-file=" + key,
              "--peer-trusted-ca-file=" + ca,
              "--peer-client-cert-auth=true"));
    }
    if (authTokenTtl != null) {
      flags.add("--auth-token-ttl=" + Math.max(1, authTokenTtl.toSeconds()));
    }
    return flags;
  }

  private List<String> baseFlags(String initialCluster) {
    return List.of(
        "--initial-cluster=" + initialCluster,
        "--initial-cluster-state=new",
        "--initial-cluster-token=" + clusterToken,
        "--heartbeat-interval=" + heartbeatInterval.toMillis(),
        "--election-timeout=" + electionTimeout.toMillis(),
        "--auto-compaction-retention=0",
        "--pre-vote=true",
        "--logger=zap",
        "--log-outputs=stderr");
  }

  private <T> T poll(String what, Duration timeout, Supplier<Optional<T>> probe) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<T> found = probe.get();
      if (found.isPresent()) {
        return found.get();
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "timed out after " + timeout.toMillis() + " ms waiting for " + what + "; " + logHint());
      }
      // An external process offers no event to wait on; probe at a modest, bounded rate.
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
  }

  private String logHint() {
    return "member logs: "
        + members.stream()
            .map(m -> m.name() + " -> " + m.logFile())
            .collect(Collectors.joining(", "));
  }

  static String logTail(EtcdMember member) {
    try {
      List<String> lines = Files.readAllLines(member.logFile(), StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static ClientInterceptor deadline(Duration timeout) {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(
          MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return next.newCall(
            method, options.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS));
      }
    };
  }

  private static int[] freePorts(int count) {
    // Distinct, and distinct from every other port this JVM has handed out lately.
    int[] ports = new int[count];
    for (int i = 0; i < count; i++) {
      ports[i] = JavaProcess.freeLoopbackPort();
    }
    return ports;
  }

  /** Cluster size and timings. */
  public static final class Builder {
    private int members = 1;
    private Duration heartbeatInterval = Duration.ofMillis(100);
    private Duration electionTimeout = Duration.ofMillis(1000);
    private Duration startTimeout = Duration.ofSeconds(30);
    private boolean tls;
    private String lockServerKeyPrefix;
    private Duration authTokenTtl;

    private Builder() {}

    /**
     * TLS on the client and peer ports with a CA of the cluster's own, client certificates required
     * on both ({@code --client-cert-auth}); client URLs become {@code https://}.
     */
    public Builder tls() {
      this.tls = true;
      return this;
    }

    /**
     * TLS ({@link #tls()}) and etcd's authentication: the lock server's user {@value
     * EtcdCluster#LOCK_SERVER_USER} may read and write under {@code lockServerKeyPrefix} only (see
     * {@link EtcdCluster#lockServerCredentials()}).
     */
    public Builder authentication(String lockServerKeyPrefix) {
      if (lockServerKeyPrefix == null || lockServerKeyPrefix.isEmpty()) {
        throw new IllegalArgumentException("the lock server's key prefix must not be empty");
      }
      this.tls = true;
      this.lockServerKeyPrefix = lockServerKeyPrefix;
      return this;
    }

    /**
     * etcd's {@code --auth-token-ttl} (whole seconds; etcd's default 300 s): how long an idle
     * simple token lives, for tests of a client re-authenticating.
     */
    public Builder authTokenTtl(Duration authTokenTtl) {
      this.authTokenTtl = authTokenTtl;
      return this;
    }

    /** How many members: 1, or 3 for failover tests. */
    public Builder members(int members) {
      if (members < 1 || members > 7) {
        throw new IllegalArgumentException("1..7 members, got " + members);
      }
      this.members = members;
      return this;
    }

    /** etcd's {@code --heartbeat-interval}; default 100 ms. */
    public Builder heartbeatInterval(Duration heartbeatInterval) {
      this.heartbeatInterval = heartbeatInterval;
      return this;
    }

    /** etcd's {@code --election-timeout}; default 1000 ms. */
    public Builder electionTimeout(Duration electionTimeout) {
      this.electionTimeout = electionTimeout;
      return this;
    }

    /** How long start and restart may take before the test fails; default 30 s. */
    public Builder startTimeout(Duration startTimeout) {
      this.startTimeout = startTimeout;
      return this;
    }

    /** Starts every member and waits until the cluster has a leader. */
    public EtcdCluster start() {
      return new EtcdCluster(this).startAll();
    }
  }
}
