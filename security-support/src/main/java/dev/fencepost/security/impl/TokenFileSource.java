package dev.fencepost.security.impl;

import dev.fencepost.security.BearerTokenSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

/**
 * The token in a file, as Kubernetes projects a service-account token into a pod: the kubelet
 * rewrites the file before the token expires, so the file is re-read whenever its modification time
 * changes (one stat per call; the content is read only after a change).
 */
public final class TokenFileSource implements BearerTokenSource {

  private final Path file;
  private FileTime readAt;
  private String token;

  public TokenFileSource(Path file) {
    this.file = file;
  }

  @Override
  public synchronized String currentToken() {
    try {
      FileTime modified = Files.getLastModifiedTime(file);
      if (token == null || !modified.equals(readAt)) {
        String read = Files.readString(file, StandardCharsets.US_ASCII).strip();
        if (read.isEmpty()) {
          throw new IllegalStateException("token file " + file + " is empty");
        }
        token = read;
        readAt = modified;
      }
      return token;
    } catch (IOException e) {
      throw new IllegalStateException("cannot read token file " + file, e);
    }
  }
}
