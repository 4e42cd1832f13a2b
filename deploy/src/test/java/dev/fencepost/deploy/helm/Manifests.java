package dev.fencepost.deploy.helm;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Rendered YAML read strictly: every document into the Kubernetes API model class of its kind
 * (fabric8's, for the API of {@link HelmChart#KUBE_VERSION}), and any field the model does not know
 * is an error. fabric8 keeps unknown fields in {@code additionalProperties} maps instead of
 * failing, so the whole object graph is walked and every such map must be empty. The Prometheus
 * Operator's kinds have no fabric8 model on this build's class path; they are read into {@link
 * Monitoring}'s records of their v1 API with unknown properties refused.
 */
final class Manifests {

  static final Set<String> MONITORING_KINDS =
      Set.of("ServiceMonitor", "PodMonitor", "PrometheusRule");

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final ObjectMapper YAML =
      YAMLMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  /** One rendered document: its raw tree and, for Kubernetes kinds, the model object. */
  record Doc(String kind, String name, Map<String, Object> raw, Object model) {
    <T> T as(Class<T> type) {
      return type.cast(model);
    }
  }

  private Manifests() {}

  /** Every document of {@code rendered}, each read strictly; throws at the first that is not. */
  static List<Doc> read(String rendered) {
    List<Doc> docs = new ArrayList<>();
    for (String text : rendered.split("(?m)^---\\s*$")) {
      if (text.lines().allMatch(line -> line.isBlank() || line.strip().startsWith("#"))) {
        continue;
      }
      Object tree = YAML.readValue(text, Object.class);
      @SuppressWarnings("unchecked")
      Map<String, Object> raw = (Map<String, Object>) tree;
      String kind = String.valueOf(raw.get("kind"));
      String apiVersion = String.valueOf(raw.get("apiVersion"));
      String name = String.valueOf(((Map<?, ?>) raw.get("metadata")).get("name"));
      Object model = strict(kind, apiVersion, text);
      List<String> unknown = unknownFields(model);
      if (!unknown.isEmpty()) {
        throw new IllegalStateException(
            kind + " " + name + ": fields the " + apiVersion + " model does not know: " + unknown);
      }
      docs.add(new Doc(kind, name, raw, model));
    }
    return docs;
  }

  private static Object strict(String kind, String apiVersion, String text) {
    if (MONITORING_KINDS.contains(kind)) {
      if (!"monitoring.coreos.com/v1".equals(apiVersion)) {
        throw new IllegalStateException(
            kind + " must be monitoring.coreos.com/v1, is " + apiVersion);
      }
      if (kind.equals("ServiceMonitor")) {
        return YAML.readValue(text, Monitoring.ServiceMonitor.class);
      }
      if (kind.equals("PodMonitor")) {
        return YAML.readValue(text, Monitoring.PodMonitor.class);
      }
      return YAML.readValue(text, Monitoring.PrometheusRule.class);
    }
    Class<? extends KubernetesResource> type =
        SERIALIZATION.getRegisteredKubernetesResource(apiVersion, kind);
    if (type == null || !HasMetadata.class.isAssignableFrom(type)) {
      throw new IllegalStateException("no Kubernetes API model for " + apiVersion + " " + kind);
    }
    return SERIALIZATION.unmarshal(text, type);
  }

  /** Paths of every field held in an {@code additionalProperties} map anywhere in the graph. */
  static List<String> unknownFields(Object model) {
    List<String> found = new ArrayList<>();
    walk(
        model,
        model.getClass().getSimpleName(),
        found,
        Collections.newSetFromMap(new IdentityHashMap<>()));
    return found;
  }

  private static void walk(Object node, String path, List<String> found, Set<Object> seen) {
    if (node == null || !seen.add(node)) {
      return;
    }
    if (node instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        walk(list.get(i), path + "[" + i + "]", found, seen);
      }
      return;
    }
    if (node instanceof Map<?, ?> map) {
      map.forEach((k, v) -> walk(v, path + "." + k, found, seen));
      return;
    }
    Class<?> type = node.getClass();
    if (type.isRecord()) {
      for (RecordComponent component : type.getRecordComponents()) {
        walk(invoke(component.getAccessor(), node), path + "." + component.getName(), found, seen);
      }
      return;
    }
    if (!type.getName().startsWith("io.fabric8.")) {
      return;
    }
    for (Method getter : type.getMethods()) {
      if (getter.getParameterCount() != 0
          || Modifier.isStatic(getter.getModifiers())
          || !getter.getName().startsWith("get")
          || getter.getName().equals("getClass")) {
        continue;
      }
      Class<?> returns = getter.getReturnType();
      if (getter.getName().equals("getAdditionalProperties")) {
        Map<?, ?> extra = (Map<?, ?>) invoke(getter, node);
        if (extra != null) {
          extra.keySet().forEach(k -> found.add(path + "." + k));
        }
      } else if (returns.getName().startsWith("io.fabric8.")
          || List.class.isAssignableFrom(returns)
          || Map.class.isAssignableFrom(returns)) {
        walk(invoke(getter, node), path + "." + property(getter), found, seen);
      }
    }
  }

  private static String property(Method getter) {
    String name = getter.getName().substring(3);
    return Character.toLowerCase(name.charAt(0)) + name.substring(1);
  }

  private static Object invoke(Method method, Object target) {
    try {
      return method.invoke(target);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(method + " on " + target.getClass(), e);
    }
  }

  /** The Prometheus Operator's v1 kinds, the fields the chart may use, from its API reference. */
  static final class Monitoring {
    private Monitoring() {}

    record ServiceMonitor(
        String apiVersion, String kind, ObjectMeta metadata, ServiceMonitorSpec spec) {}

    record ServiceMonitorSpec(LabelSelector selector, List<Endpoint> endpoints) {}

    record PodMonitor(String apiVersion, String kind, ObjectMeta metadata, PodMonitorSpec spec) {}

    record PodMonitorSpec(LabelSelector selector, List<Endpoint> podMetricsEndpoints) {}

    record Endpoint(
        String port, String path, String scheme, String interval, TlsConfig tlsConfig) {}

    record TlsConfig(String serverName, Boolean insecureSkipVerify, SecretOrConfigMap ca) {}

    record SecretOrConfigMap(KeyRef configMap, KeyRef secret) {}

    record KeyRef(String name, String key) {}

    record PrometheusRule(String apiVersion, String kind, ObjectMeta metadata, RuleSpec spec) {}

    record RuleSpec(List<RuleGroup> groups) {}

    record RuleGroup(String name, String interval, List<Rule> rules) {}

    /** One rule of monitoring.coreos.com/v1's Rule ({@code for} is a Java keyword). */
    record Rule(
        String alert,
        String record,
        String expr,
        @JsonProperty("for") String forDuration,
        @JsonProperty("keep_firing_for") String keepFiringFor,
        Map<String, String> labels,
        Map<String, String> annotations) {}
  }
}
