package dev.fencepost.deploy.helm;

import dev.fencepost.deploy.helm.Manifests.Doc;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The rules every rendering of the chart must keep, each a function from the rendered documents to
 * its violations (empty when kept), so that the tests can show each rule failing on a deliberately
 * broken rendering as well as passing on the real ones.
 */
final class Policies {

  /** The user every Fencepost image (Jib) and the etcd members run as. */
  static final long NON_ROOT_UID = 65532L;

  /**
   * Every spelling of a property that can switch a fencing guard off or weaken one, normalised
   * (lower case, no separators) as Spring's relaxed binding reads environment variables and
   * properties: the proxy's high-water and uniqueness switches and their experiment acknowledgement
   * (ProxyProperties.Fencing, FencingSwitches, ADR 0043), the experiment worker's resource fence
   * switch (ADR 0035, 0100), asynchronous commits (ADR 0156), the lock client's on/off and its
   * local deadline's margin (ADR 0021), and the configuration channels that could carry any of
   * them.
   */
  static final List<String> GUARD_PROPERTIES =
      List.of(
          "fencepostproxyfencing",
          "highwaterenabled",
          "uniquenessenabled",
          "fencepostexperiment",
          "resourcefence",
          "experimentdisabled",
          "allowasynchronouscommit",
          "fencepostlockclientenabled",
          "safetymargin",
          "springapplicationjson");

  private static final ObjectMapper YAML = YAMLMapper.builder().build();
  private static final Pattern SEPARATORS = Pattern.compile("[-_.\\[\\]\"'\\s]");

  private Policies() {}

  /** A pod template of the rendering, with what owns it. */
  record Pod(String owner, boolean longRunning, PodTemplateSpec template) {
    PodSpec spec() {
      return template.getSpec();
    }
  }

  static List<Pod> pods(List<Doc> docs) {
    List<Pod> pods = new ArrayList<>();
    for (Doc doc : docs) {
      String owner = doc.kind() + "/" + doc.name();
      Object model = doc.model();
      if (model instanceof Deployment d) {
        pods.add(new Pod(owner, true, d.getSpec().getTemplate()));
      } else if (model instanceof StatefulSet s) {
        pods.add(new Pod(owner, true, s.getSpec().getTemplate()));
      } else if (model instanceof Job j) {
        pods.add(new Pod(owner, false, j.getSpec().getTemplate()));
      } else if (model instanceof CronJob c) {
        pods.add(new Pod(owner, false, c.getSpec().getJobTemplate().getSpec().getTemplate()));
      }
    }
    return pods;
  }

  /** Resources, probes, non-root, read-only root, no privilege, seccomp, /tmp and no API token. */
  static List<String> podHardening(List<Doc> docs) {
    List<String> violations = new ArrayList<>();
    for (Pod pod : pods(docs)) {
      PodSpec spec = pod.spec();
      PodSecurityContext podContext = spec.getSecurityContext();
      if (!Boolean.FALSE.equals(spec.getAutomountServiceAccountToken())) {
        violations.add(pod.owner() + ": automountServiceAccountToken is not false");
      }
      if (podContext == null || !Boolean.TRUE.equals(podContext.getRunAsNonRoot())) {
        violations.add(pod.owner() + ": pod runAsNonRoot is not true");
      }
      List<Container> containers = new ArrayList<>(spec.getContainers());
      if (spec.getInitContainers() != null) {
        containers.addAll(spec.getInitContainers());
      }
      for (Container c : containers) {
        String where = pod.owner() + " container " + c.getName();
        SecurityContext sc = c.getSecurityContext();
        if (sc == null) {
          violations.add(where + ": no securityContext");
          continue;
        }
        if (!Boolean.TRUE.equals(sc.getRunAsNonRoot())) {
          violations.add(where + ": runAsNonRoot is not true");
        }
        if (!Objects.equals(sc.getRunAsUser(), NON_ROOT_UID)) {
          violations.add(where + ": runAsUser is " + sc.getRunAsUser() + ", not 65532");
        }
        if (!Boolean.TRUE.equals(sc.getReadOnlyRootFilesystem())) {
          violations.add(where + ": root filesystem is writable");
        }
        if (!Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation())) {
          violations.add(where + ": allowPrivilegeEscalation is not false");
        }
        if (sc.getCapabilities() == null
            || sc.getCapabilities().getDrop() == null
            || !sc.getCapabilities().getDrop().contains("ALL")
            || (sc.getCapabilities().getAdd() != null
                && !sc.getCapabilities().getAdd().isEmpty())) {
          violations.add(where + ": capabilities are not drop ALL, add none");
        }
        if (sc.getSeccompProfile() == null
            || !"RuntimeDefault".equals(sc.getSeccompProfile().getType())) {
          violations.add(where + ": seccomp profile is not RuntimeDefault");
        }
        if (c.getResources() == null
            || c.getResources().getRequests() == null
            || !c.getResources().getRequests().containsKey("cpu")
            || !c.getResources().getRequests().containsKey("memory")
            || c.getResources().getLimits() == null
            || !c.getResources().getLimits().containsKey("memory")) {
          violations.add(where + ": no cpu and memory requests and memory limit");
        }
        if (pod.longRunning()
            && (c.getLivenessProbe() == null
                || c.getReadinessProbe() == null
                || c.getStartupProbe() == null)) {
          violations.add(
              where + ": a long-running container without startup, liveness and readiness probes");
        }
        List<VolumeMount> mounts = c.getVolumeMounts() == null ? List.of() : c.getVolumeMounts();
        boolean tmp =
            mounts.stream()
                .anyMatch(
                    m ->
                        "/tmp".equals(m.getMountPath())
                            && spec.getVolumes().stream()
                                .anyMatch(
                                    v ->
                                        v.getName().equals(m.getName())
                                            && v.getEmptyDir() != null));
        if (!tmp) {
          violations.add(where + ": no emptyDir at /tmp");
        }
      }
    }
    return violations;
  }

  /** Every Deployment and StatefulSet has a PodDisruptionBudget that selects its pods. */
  static List<String> disruptionBudgets(List<Doc> docs) {
    List<PodDisruptionBudget> budgets =
        docs.stream()
            .filter(d -> d.model() instanceof PodDisruptionBudget)
            .map(d -> d.as(PodDisruptionBudget.class))
            .toList();
    List<String> violations = new ArrayList<>();
    for (Pod pod : pods(docs)) {
      if (!pod.longRunning()) {
        continue;
      }
      Map<String, String> labels = pod.template().getMetadata().getLabels();
      boolean covered =
          budgets.stream()
              .anyMatch(
                  b ->
                      b.getSpec().getSelector().getMatchLabels() != null
                          && labels
                              .entrySet()
                              .containsAll(b.getSpec().getSelector().getMatchLabels().entrySet()));
      if (!covered) {
        violations.add(pod.owner() + ": no PodDisruptionBudget selects its pods");
      }
    }
    return violations;
  }

  /** Reconciliation runs hourly, one at a time, with a start deadline and bounded history. */
  static List<String> hourlyReconciliation(List<Doc> docs) {
    List<CronJob> cronJobs =
        docs.stream()
            .filter(d -> d.model() instanceof CronJob)
            .map(d -> d.as(CronJob.class))
            .toList();
    List<String> violations = new ArrayList<>();
    if (cronJobs.size() != 1) {
      violations.add("expected exactly the reconciliation CronJob, found " + cronJobs.size());
    }
    for (CronJob cronJob : cronJobs) {
      var spec = cronJob.getSpec();
      String name = "CronJob/" + cronJob.getMetadata().getName();
      if (!spec.getSchedule().matches("[0-5]?[0-9] \\* \\* \\* \\*")) {
        violations.add(name + ": schedule " + spec.getSchedule() + " is not hourly");
      }
      if (!"Forbid".equals(spec.getConcurrencyPolicy())) {
        violations.add(name + ": concurrencyPolicy is " + spec.getConcurrencyPolicy());
      }
      if (spec.getStartingDeadlineSeconds() == null) {
        violations.add(name + ": no startingDeadlineSeconds");
      } else if (spec.getSchedule().matches("[0-5]?[0-9] .*")) {
        int minute = Integer.parseInt(spec.getSchedule().split(" ")[0]);
        if (minute * 60L + spec.getStartingDeadlineSeconds() >= 3600) {
          violations.add(
              name + ": a late start would fall into the next hour and reconcile the wrong one");
        }
      }
      if (spec.getSuccessfulJobsHistoryLimit() == null
          || spec.getFailedJobsHistoryLimit() == null) {
        violations.add(name + ": history limits not set");
      }
    }
    return violations;
  }

  /** Every place a setting can reach an application: env names and values, args, ConfigMaps. */
  static List<String> fencingSwitches(List<Doc> docs) {
    List<String> violations = new ArrayList<>();
    for (Pod pod : pods(docs)) {
      List<Container> containers = new ArrayList<>(pod.spec().getContainers());
      if (pod.spec().getInitContainers() != null) {
        containers.addAll(pod.spec().getInitContainers());
      }
      for (Container c : containers) {
        String where = pod.owner() + " container " + c.getName();
        for (EnvVar env : c.getEnv() == null ? List.<EnvVar>of() : c.getEnv()) {
          check(where + " env " + env.getName(), env.getName(), violations);
          check(where + " env " + env.getName() + " value", env.getValue(), violations);
        }
        for (String arg : c.getArgs() == null ? List.<String>of() : c.getArgs()) {
          check(where + " arg", arg, violations);
        }
        for (String arg : c.getCommand() == null ? List.<String>of() : c.getCommand()) {
          check(where + " command", arg, violations);
        }
        if (c.getEnvFrom() != null && !c.getEnvFrom().isEmpty()) {
          violations.add(where + ": envFrom would bring in names nobody reviewed");
        }
      }
    }
    for (Doc doc : docs) {
      if (doc.model() instanceof ConfigMap configMap && configMap.getData() != null) {
        for (Map.Entry<String, String> entry : configMap.getData().entrySet()) {
          String where = "ConfigMap/" + doc.name() + " " + entry.getKey();
          check(where, entry.getValue(), violations);
          for (String property : flatten(entry.getValue())) {
            check(where + " property " + property, property, violations);
          }
        }
      }
    }
    return violations;
  }

  private static void check(String where, String text, List<String> violations) {
    if (text == null) {
      return;
    }
    String normalised = SEPARATORS.matcher(text.toLowerCase(Locale.ROOT)).replaceAll("");
    for (String guard : GUARD_PROPERTIES) {
      if (normalised.contains(guard)) {
        violations.add(where + ": carries " + guard);
      }
    }
  }

  /** The properties of a YAML configuration file, flattened as Spring names them. */
  static Map<String, String> properties(String yaml) {
    Map<String, String> properties = new java.util.LinkedHashMap<>();
    for (String name : flatten(yaml)) {
      properties.put(name, null);
    }
    flattenValues("", YAML.readValue(yaml, Object.class), properties);
    return properties;
  }

  private static void flattenValues(String prefix, Object node, Map<String, String> into) {
    if (node instanceof Map<?, ?> map) {
      map.forEach(
          (k, v) ->
              flattenValues(prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k, v, into));
    } else if (node instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        flattenValues(prefix + "[" + i + "]", list.get(i), into);
      }
    } else {
      into.put(prefix, String.valueOf(node));
    }
  }

  /** The dotted property names of a YAML document (not YAML: none). */
  static List<String> flatten(String yaml) {
    List<String> names = new ArrayList<>();
    if (yaml.isBlank()) {
      return names;
    }
    try {
      flatten("", YAML.readValue(yaml, Object.class), names);
    } catch (RuntimeException notYaml) {
      return names;
    }
    return names;
  }

  private static void flatten(String prefix, Object node, List<String> names) {
    if (node instanceof Map<?, ?> map) {
      map.forEach(
          (k, v) -> flatten(prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k, v, names));
    } else if (node instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        flatten(prefix + "[" + i + "]", list.get(i), names);
      }
    } else {
      names.add(prefix);
    }
  }

  /** Credentials only by reference: no Secret rendered, every password from a secretKeyRef. */
  static List<String> secretsByReference(List<Doc> docs) {
    List<String> violations = new ArrayList<>();
    for (Doc doc : docs) {
      if ("Secret".equals(doc.kind())) {
        violations.add("Secret/" + doc.name() + ": the chart renders a Secret");
      }
    }
    for (Pod pod : pods(docs)) {
      for (Container c : pod.spec().getContainers()) {
        for (EnvVar env : c.getEnv() == null ? List.<EnvVar>of() : c.getEnv()) {
          boolean secretish = env.getName().matches(".*(PASSWORD|SECRET|TOKEN|KEY).*");
          if (secretish
              && (env.getValue() != null
                  || env.getValueFrom() == null
                  || env.getValueFrom().getSecretKeyRef() == null)) {
            violations.add(pod.owner() + " env " + env.getName() + ": not from a secretKeyRef");
          }
        }
      }
    }
    return violations;
  }
}
