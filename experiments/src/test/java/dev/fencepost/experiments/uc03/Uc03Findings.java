package dev.fencepost.experiments.uc03;

/** The prose under the matrix: what the runs showed (kept in step with the assertions). */
final class Uc03Findings {

  private Uc03Findings() {}

  static final String TEXT =
      """
      ## Findings

      (filled in from the measured runs)
      """;
}
