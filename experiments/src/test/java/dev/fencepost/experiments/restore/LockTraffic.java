package dev.fencepost.experiments.restore;

import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.security.FencepostRole;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * Other tenants' lock traffic, through the lock server's public API: a session that acquires and
 * releases one key {@code n} times. Between a backup and a restore the token source keeps moving
 * for every key, not only the payout accounts'; this is what makes a rewound source hand out tokens
 * the guards have already seen as lower (ADR 0003's hazard).
 */
final class LockTraffic {

  private LockTraffic() {}

  /** Acquires and releases {@code key} {@code n} times; the last token granted. */
  static long acquireAndRelease(String baseUrl, String key, int n) {
    HttpClient http = HttpClient.newHttpClient();
    String session =
        field(
            post(
                http,
                baseUrl + "/v1/sessions",
                "{\"owner\":\"other-traffic\",\"ttlMillis\":60000}"),
            "sessionId");
    long token = 0;
    for (int i = 0; i < n; i++) {
      String grant =
          post(
              http,
              baseUrl + "/v1/locks/" + key + "/acquire",
              "{\"sessionId\":\"" + session + "\",\"waitMillis\":0}");
      token = Long.parseLong(field(grant, "token"));
      post(
          http,
          baseUrl + "/v1/locks/" + key + "/release",
          "{\"sessionId\":\"" + session + "\",\"token\":" + token + "}");
    }
    send(
        http,
        HttpRequest.newBuilder(URI.create(baseUrl + "/v1/sessions/" + session))
            .header("Authorization", bearer())
            .DELETE()
            .build());
    return token;
  }

  private static String post(HttpClient http, String url, String json) {
    HttpResponse<String> response =
        send(
            http,
            HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json")
                .header("Authorization", bearer())
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build());
    if (response.statusCode() / 100 != 2) {
      throw new IllegalStateException(
          url + " answered " + response.statusCode() + ": " + response.body());
    }
    return response.body();
  }

  /** Other traffic is another lock holder: a payout worker of the experiments' issuer. */
  private static String bearer() {
    return "Bearer " + LockServers.identity().tokens(FencepostRole.PAYOUT_WORKER).currentToken();
  }

  private static HttpResponse<String> send(HttpClient http, HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static String field(String json, String name) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"" + name + "\":\"?([^\",}]+)\"?").matcher(json);
    if (!m.find()) {
      throw new IllegalStateException("no " + name + " in " + json);
    }
    return m.group(1);
  }
}
