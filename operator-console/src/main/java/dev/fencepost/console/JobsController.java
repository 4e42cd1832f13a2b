package dev.fencepost.console;

import jakarta.servlet.http.HttpServletResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;
import tools.jackson.databind.JsonNode;

/**
 * Jobs: the recent executions of payoutJob and reconciliationJob from the job repository, through
 * each job's {@code batchjobs} endpoint with the operator's token; payouts posted per minute
 * (paydb); and a launch after a confirmation. While an execution runs, the page reloads itself.
 */
@Controller
class JobsController {

  private static final Logger log = LoggerFactory.getLogger(JobsController.class);

  private final ServiceClient services;
  private final ConsoleReads reads;
  private final ConsoleProperties properties;

  JobsController(ServiceClient services, ConsoleReads reads, ConsoleProperties properties) {
    this.services = services;
    this.reads = reads;
    this.properties = properties;
  }

  /** One job's executions, or why they could not be listed. */
  record JobView(String name, List<JsonNode> executions, String error) {}

  private Map<String, String> jobs() {
    Map<String, String> jobs = new LinkedHashMap<>();
    jobs.put("payoutJob", properties.getPayoutJobManagementUrl());
    jobs.put("reconciliationJob", properties.getReconciliationManagementUrl());
    return jobs;
  }

  @GetMapping("/jobs")
  String jobs(Model model) {
    List<JobView> views = new ArrayList<>();
    boolean running = false;
    for (var job : jobs().entrySet()) {
      ServiceClient.Answer answer =
          services.get(endpoint(job.getValue(), job.getKey()) + "?limit=10");
      if (answer.ok() && answer.body() != null) {
        List<JsonNode> executions = new ArrayList<>();
        for (JsonNode execution : answer.body().path("executions")) {
          executions.add(execution);
          String status = execution.path("status").asString("");
          running |= status.equals("STARTING") || status.equals("STARTED");
        }
        views.add(new JobView(job.getKey(), executions, null));
      } else if (answer.status() == 404) {
        views.add(new JobView(job.getKey(), List.of(), null));
      } else {
        views.add(new JobView(job.getKey(), List.of(), answer.message()));
      }
    }
    model.addAttribute("jobs", views);
    model.addAttribute("running", running);
    model.addAttribute("chart", PostedChart.svg(reads.postedPerMinute()));
    model.addAttribute("chartWindow", properties.getChartWindow());
    return "jobs";
  }

  @PostMapping("/jobs/{job}/confirm")
  String confirm(
      @PathVariable String job, @RequestParam(required = false) String parameters, Model model) {
    requireJob(job);
    model.addAttribute("job", job);
    model.addAttribute("parameters", Inputs.jobParameters(parameters));
    return "job-confirm";
  }

  @PostMapping("/jobs/{job}/launch")
  String launch(
      @PathVariable String job,
      @RequestParam(required = false) String parameters,
      Model model,
      HttpServletResponse response,
      RedirectAttributes redirect) {
    String url = requireJob(job);
    String p = Inputs.jobParameters(parameters);
    Map<String, Object> body = new LinkedHashMap<>();
    if (p != null) {
      body.put("parameters", p);
    }
    ServiceClient.Answer answer = services.post(endpoint(url, job), body);
    log.atInfo()
        .addKeyValue("event", "console.job.launch")
        .addKeyValue("person", OperatorToken.person())
        .addKeyValue("jobName", job)
        .addKeyValue("status", answer.status())
        .addKeyValue("code", answer.code())
        .log("launch sent");
    if (!answer.ok()) {
      response.setStatus(answer.reachable() && answer.status() < 500 ? answer.status() : 502);
      model.addAttribute("job", job);
      model.addAttribute("parameters", p);
      model.addAttribute("error", "The job refused the launch: " + answer.message());
      return "job-confirm";
    }
    redirect.addFlashAttribute(
        "launched",
        job + " launched as execution " + answer.body().path("executionId").asString("?"));
    return "redirect:/jobs";
  }

  private String requireJob(String job) {
    String url = jobs().get(job);
    if (url == null) {
      throw new BadInputException("job", "the job is payoutJob or reconciliationJob");
    }
    return url;
  }

  private static String endpoint(String managementUrl, String job) {
    return OverviewController.trim(managementUrl) + "/actuator/batchjobs/" + job;
  }
}
