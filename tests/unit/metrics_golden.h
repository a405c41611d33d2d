/* The expositions of the metric sets in the states that
 * tests/unit/metrics_states.h sets, as rendered before the sets moved
 * beside what they measure: the registry must not change a byte.
 * Process figures (read from /proc) are replaced with V. What the texts
 * share is written once: each family's HELP and TYPE lines, a histogram
 * of attempt durations with nothing observed, the process's families. */
#ifndef MOONSCHED_TEST_METRICS_GOLDEN_H
#define MOONSCHED_TEST_METRICS_GOLDEN_H

#define HEAD_SCHEDULER_SCHEDULE_ATTEMPTS_TOTAL \
    "# HELP scheduler_schedule_attempts_total Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.\n" \
    "# TYPE scheduler_schedule_attempts_total counter\n"
#define HEAD_SCHEDULER_SCHEDULING_ATTEMPT_DURATION_SECONDS \
    "# HELP scheduler_scheduling_attempt_duration_seconds Scheduling attempt latency in seconds (scheduling algorithm + binding)\n" \
    "# TYPE scheduler_scheduling_attempt_duration_seconds histogram\n"
#define HEAD_SCHEDULER_PENDING_PODS \
    "# HELP scheduler_pending_pods Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.\n" \
    "# TYPE scheduler_pending_pods gauge\n"
#define HEAD_SCHEDULER_POD_SCHEDULING_ATTEMPTS \
    "# HELP scheduler_pod_scheduling_attempts Number of attempts to successfully schedule a pod.\n" \
    "# TYPE scheduler_pod_scheduling_attempts histogram\n"
#define HEAD_SCHEDULER_PREEMPTION_ATTEMPTS_TOTAL \
    "# HELP scheduler_preemption_attempts_total Total preemption attempts in the cluster till now\n" \
    "# TYPE scheduler_preemption_attempts_total counter\n"
#define HEAD_SCHEDULER_PREEMPTION_VICTIMS \
    "# HELP scheduler_preemption_victims Number of selected preemption victims\n" \
    "# TYPE scheduler_preemption_victims histogram\n"
#define HEAD_SCHEDULER_GOROUTINES \
    "# HELP scheduler_goroutines Number of running goroutines split by the work they do such as binding. Here: binds in flight on the binder's connection (upstream runs one goroutine per bind).\n" \
    "# TYPE scheduler_goroutines gauge\n"
#define HEAD_MOONSCHED_BINDINGS_TOTAL \
    "# HELP moonsched_bindings_total Binding requests by their outcome.\n" \
    "# TYPE moonsched_bindings_total counter\n"
#define HEAD_MOONSCHED_BINDING_CONFLICTS_TOTAL \
    "# HELP moonsched_binding_conflicts_total Binds the API server refused with 409 Conflict, by what the refusal meant.\n" \
    "# TYPE moonsched_binding_conflicts_total counter\n"
#define HEAD_MOONSCHED_AUTHENTICATION_ATTEMPTS_TOTAL \
    "# HELP moonsched_authentication_attempts_total Requests to the secure port by how they were authenticated (as the API server's authentication_attempts, and throttled: refused without a review after too many failures from the address).\n" \
    "# TYPE moonsched_authentication_attempts_total counter\n"
#define HEAD_MOONSCHED_API_REQUESTS_TOTAL \
    "# HELP moonsched_api_requests_total API requests for binds, events, status patches and evictions, by HTTP status (0: no answer).\n" \
    "# TYPE moonsched_api_requests_total counter\n"
#define HEAD_MOONSCHED_EVENTS_TOTAL \
    "# HELP moonsched_events_total Kubernetes Events posted, failed, or suppressed by aggregation and the rate limit.\n" \
    "# TYPE moonsched_events_total counter\n"
#define HEAD_LEADER_ELECTION_MASTER_STATUS \
    "# HELP leader_election_master_status Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.\n" \
    "# TYPE leader_election_master_status gauge\n"
#define HEAD_MOONSCHED_POLICY_RELOADS_TOTAL \
    "# HELP moonsched_policy_reloads_total Lua policy versions swapped in (ok) or refused, the running one staying (refused).\n" \
    "# TYPE moonsched_policy_reloads_total counter\n"
#define HEAD_MOONSCHED_POLICY_CALLS_TOTAL \
    "# HELP moonsched_policy_calls_total Calls into Lua policies.\n" \
    "# TYPE moonsched_policy_calls_total counter\n"
#define HEAD_MOONSCHED_POLICY_CALL_FAILURES_TOTAL \
    "# HELP moonsched_policy_call_failures_total Lua policy calls that failed (errors, budget or memory cap).\n" \
    "# TYPE moonsched_policy_call_failures_total counter\n"
#define HEAD_MOONSCHED_POLICY_BUDGET_KILLS_TOTAL \
    "# HELP moonsched_policy_budget_kills_total Lua policy calls stopped by the CPU budget.\n" \
    "# TYPE moonsched_policy_budget_kills_total counter\n"
#define HEAD_MOONSCHED_POLICY_DISABLED \
    "# HELP moonsched_policy_disabled 1 while the policy is disabled after too many consecutive failures.\n" \
    "# TYPE moonsched_policy_disabled gauge\n"
#define HEAD_REST_CLIENT_REQUESTS_TOTAL \
    "# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.\n" \
    "# TYPE rest_client_requests_total counter\n"
#define HEAD_REST_CLIENT_REQUEST_DURATION_SECONDS \
    "# HELP rest_client_request_duration_seconds Request latency in seconds. Broken down by verb, and host.\n" \
    "# TYPE rest_client_request_duration_seconds histogram\n"
#define HEAD_PROCESS_CPU_SECONDS_TOTAL \
    "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n" \
    "# TYPE process_cpu_seconds_total counter\n"
#define HEAD_PROCESS_RESIDENT_MEMORY_BYTES \
    "# HELP process_resident_memory_bytes Resident memory size in bytes.\n" \
    "# TYPE process_resident_memory_bytes gauge\n"
#define HEAD_PROCESS_VIRTUAL_MEMORY_BYTES \
    "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n" \
    "# TYPE process_virtual_memory_bytes gauge\n"
#define HEAD_PROCESS_START_TIME_SECONDS \
    "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n" \
    "# TYPE process_start_time_seconds gauge\n"
#define HEAD_MOONSCHED_THREADS \
    "# HELP moonsched_threads OS threads of the process (scheduler, binder, poster, informers, HTTP servers, controllers).\n" \
    "# TYPE moonsched_threads gauge\n"
#define HEAD_MOONSCHED_HEAP_INUSE_BYTES \
    "# HELP moonsched_heap_inuse_bytes Bytes of the C heap in use: allocated and not yet freed (glibc's arenas and mmapped blocks).\n" \
    "# TYPE moonsched_heap_inuse_bytes gauge\n"
#define HEAD_MOONSCHED_HEAP_FREE_BYTES \
    "# HELP moonsched_heap_free_bytes Bytes free inside the C heap's arenas for later allocations, resident or not (malloc_trim gives back their pages but keeps them counted).\n" \
    "# TYPE moonsched_heap_free_bytes gauge\n"
#define HEAD_PROCESS_OPEN_FDS \
    "# HELP process_open_fds Number of open file descriptors.\n" \
    "# TYPE process_open_fds gauge\n"
#define HEAD_PROCESS_MAX_FDS \
    "# HELP process_max_fds Maximum number of open file descriptors.\n" \
    "# TYPE process_max_fds gauge\n"
#define HEAD_DESCHEDULER_PODS_EVICTED_TOTAL \
    "# HELP descheduler_pods_evicted_total Number of total evicted pods, by the result, by the strategy, by the namespace, by the node name. 'error' result means a pod could not be evicted\n" \
    "# TYPE descheduler_pods_evicted_total counter\n"
#define HEAD_DESCHEDULER_LOOP_DURATION_SECONDS \
    "# HELP descheduler_loop_duration_seconds Time taken to complete a full descheduling cycle\n" \
    "# TYPE descheduler_loop_duration_seconds histogram\n"
#define HEAD_DESCHEDULER_STRATEGY_DURATION_SECONDS \
    "# HELP descheduler_strategy_duration_seconds Time taken to complete Each strategy of the descheduling operation\n" \
    "# TYPE descheduler_strategy_duration_seconds histogram\n"

#define NO_ATTEMPT_DURATIONS(profile, result) \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"0.001\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"0.002\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"0.004\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"0.008\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"0.016\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"0.032\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"0.064\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"0.128\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"0.256\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"0.512\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"1.024\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"2.048\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"4.096\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"8.192\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"16.384\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"" profile "\",result=\"" result "\",le=\"+Inf\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_sum{profile=\"" profile "\",result=\"" result "\"} 0\n" \
    "scheduler_scheduling_attempt_duration_seconds_count{profile=\"" profile "\",result=\"" result "\"} 0\n"

#define PROCESS_FAMILIES \
    "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n" \
    "# TYPE process_cpu_seconds_total counter\n" \
    "process_cpu_seconds_total V\n" \
    "# HELP process_resident_memory_bytes Resident memory size in bytes.\n" \
    "# TYPE process_resident_memory_bytes gauge\n" \
    "process_resident_memory_bytes V\n" \
    "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n" \
    "# TYPE process_virtual_memory_bytes gauge\n" \
    "process_virtual_memory_bytes V\n" \
    "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n" \
    "# TYPE process_start_time_seconds gauge\n" \
    "process_start_time_seconds V\n" \
    "# HELP moonsched_threads OS threads of the process (scheduler, binder, poster, informers, HTTP servers, controllers).\n" \
    "# TYPE moonsched_threads gauge\n" \
    "moonsched_threads V\n" \
    "# HELP moonsched_heap_inuse_bytes Bytes of the C heap in use: allocated and not yet freed (glibc's arenas and mmapped blocks).\n" \
    "# TYPE moonsched_heap_inuse_bytes gauge\n" \
    "moonsched_heap_inuse_bytes V\n" \
    "# HELP moonsched_heap_free_bytes Bytes free inside the C heap's arenas for later allocations, resident or not (malloc_trim gives back their pages but keeps them counted).\n" \
    "# TYPE moonsched_heap_free_bytes gauge\n" \
    "moonsched_heap_free_bytes V\n" \
    "# HELP process_open_fds Number of open file descriptors.\n" \
    "# TYPE process_open_fds gauge\n" \
    "process_open_fds V\n" \
    "# HELP process_max_fds Maximum number of open file descriptors.\n" \
    "# TYPE process_max_fds gauge\n" \
    "process_max_fds V\n"

static const char golden_run[] =
    HEAD_SCHEDULER_SCHEDULE_ATTEMPTS_TOTAL
    "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"} 2\n"
    "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"unschedulable\"} 0\n"
    "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"error\"} 0\n"
    "scheduler_schedule_attempts_total{profile=\"gpu\",result=\"scheduled\"} 0\n"
    "scheduler_schedule_attempts_total{profile=\"gpu\",result=\"unschedulable\"} 1\n"
    "scheduler_schedule_attempts_total{profile=\"gpu\",result=\"error\"} 1\n"
    HEAD_SCHEDULER_SCHEDULING_ATTEMPT_DURATION_SECONDS
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"0.001\"} 1\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"0.002\"} 1\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"0.004\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"0.008\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"0.016\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"0.032\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"0.064\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"0.128\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"0.256\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"0.512\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"1.024\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"2.048\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"4.096\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"8.192\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"16.384\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=\"+Inf\"} 2\n"
    "scheduler_scheduling_attempt_duration_seconds_sum{profile=\"default-scheduler\",result=\"scheduled\"} 0.0045\n"
    "scheduler_scheduling_attempt_duration_seconds_count{profile=\"default-scheduler\",result=\"scheduled\"} 2\n"
    NO_ATTEMPT_DURATIONS("default-scheduler", "unschedulable")
    NO_ATTEMPT_DURATIONS("default-scheduler", "error")
    NO_ATTEMPT_DURATIONS("gpu", "scheduled")
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"0.001\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"0.002\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"0.004\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"0.008\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"0.016\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"0.032\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"0.064\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"0.128\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"0.256\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"0.512\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"1.024\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"2.048\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"4.096\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"8.192\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"16.384\"} 0\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"+Inf\"} 1\n"
    "scheduler_scheduling_attempt_duration_seconds_sum{profile=\"gpu\",result=\"unschedulable\"} 20\n"
    "scheduler_scheduling_attempt_duration_seconds_count{profile=\"gpu\",result=\"unschedulable\"} 1\n"
    NO_ATTEMPT_DURATIONS("gpu", "error")
    HEAD_SCHEDULER_PENDING_PODS
    "scheduler_pending_pods{queue=\"active\"} 4\n"
    "scheduler_pending_pods{queue=\"backoff\"} 0\n"
    "scheduler_pending_pods{queue=\"unschedulable\"} 1\n"
    "scheduler_pending_pods{queue=\"gated\"} 2\n"
    HEAD_SCHEDULER_POD_SCHEDULING_ATTEMPTS
    "scheduler_pod_scheduling_attempts_bucket{le=\"1\"} 0\n"
    "scheduler_pod_scheduling_attempts_bucket{le=\"2\"} 0\n"
    "scheduler_pod_scheduling_attempts_bucket{le=\"4\"} 1\n"
    "scheduler_pod_scheduling_attempts_bucket{le=\"8\"} 1\n"
    "scheduler_pod_scheduling_attempts_bucket{le=\"16\"} 1\n"
    "scheduler_pod_scheduling_attempts_bucket{le=\"+Inf\"} 1\n"
    "scheduler_pod_scheduling_attempts_sum 3\n"
    "scheduler_pod_scheduling_attempts_count 1\n"
    HEAD_SCHEDULER_PREEMPTION_ATTEMPTS_TOTAL
    "scheduler_preemption_attempts_total 2\n"
    HEAD_SCHEDULER_PREEMPTION_VICTIMS
    "scheduler_preemption_victims_bucket{le=\"1\"} 0\n"
    "scheduler_preemption_victims_bucket{le=\"2\"} 0\n"
    "scheduler_preemption_victims_bucket{le=\"4\"} 0\n"
    "scheduler_preemption_victims_bucket{le=\"8\"} 0\n"
    "scheduler_preemption_victims_bucket{le=\"16\"} 1\n"
    "scheduler_preemption_victims_bucket{le=\"32\"} 1\n"
    "scheduler_preemption_victims_bucket{le=\"64\"} 1\n"
    "scheduler_preemption_victims_bucket{le=\"+Inf\"} 1\n"
    "scheduler_preemption_victims_sum 12\n"
    "scheduler_preemption_victims_count 1\n"
    HEAD_SCHEDULER_GOROUTINES
    "scheduler_goroutines{operation=\"binding\"} 5\n"
    HEAD_MOONSCHED_BINDINGS_TOTAL
    "moonsched_bindings_total{result=\"ok\"} 1\n"
    "moonsched_bindings_total{result=\"failed\"} 0\n"
    "moonsched_bindings_total{result=\"gone\"} 0\n"
    "moonsched_bindings_total{result=\"conflict\"} 1\n"
    HEAD_MOONSCHED_BINDING_CONFLICTS_TOTAL
    "moonsched_binding_conflicts_total{reason=\"other\"} 0\n"
    "moonsched_binding_conflicts_total{reason=\"already_bound\"} 0\n"
    "moonsched_binding_conflicts_total{reason=\"gated\"} 1\n"
    "moonsched_binding_conflicts_total{reason=\"uid_changed\"} 0\n"
    "moonsched_binding_conflicts_total{reason=\"being_deleted\"} 0\n"
    HEAD_MOONSCHED_AUTHENTICATION_ATTEMPTS_TOTAL
    "moonsched_authentication_attempts_total{result=\"success\"} 1\n"
    "moonsched_authentication_attempts_total{result=\"failure\"} 0\n"
    "moonsched_authentication_attempts_total{result=\"error\"} 0\n"
    "moonsched_authentication_attempts_total{result=\"throttled\"} 1\n"
    HEAD_MOONSCHED_API_REQUESTS_TOTAL
    "moonsched_api_requests_total{code=\"0\"} 1\n"
    "moonsched_api_requests_total{code=\"201\"} 1\n"
    "moonsched_api_requests_total{code=\"409\"} 1\n"
    HEAD_MOONSCHED_EVENTS_TOTAL
    "moonsched_events_total{result=\"posted\"} 5\n"
    "moonsched_events_total{result=\"failed\"} 1\n"
    "moonsched_events_total{result=\"suppressed\"} 9\n"
    HEAD_LEADER_ELECTION_MASTER_STATUS
    "leader_election_master_status{name=\"kube-\\\"scheduler\"} 1\n"
    HEAD_MOONSCHED_POLICY_RELOADS_TOTAL
    "moonsched_policy_reloads_total{plugin=\"lua:g\\\"pu\",profile=\"default-scheduler\",result=\"ok\"} 2\n"
    "moonsched_policy_reloads_total{plugin=\"lua:g\\\"pu\",profile=\"default-scheduler\",result=\"refused\"} 1\n"
    HEAD_MOONSCHED_POLICY_CALLS_TOTAL
    "moonsched_policy_calls_total{plugin=\"lua:g\\\"pu\",profile=\"default-scheduler\"} 10\n"
    HEAD_MOONSCHED_POLICY_CALL_FAILURES_TOTAL
    "moonsched_policy_call_failures_total{plugin=\"lua:g\\\"pu\",profile=\"default-scheduler\"} 4\n"
    HEAD_MOONSCHED_POLICY_BUDGET_KILLS_TOTAL
    "moonsched_policy_budget_kills_total{plugin=\"lua:g\\\"pu\",profile=\"default-scheduler\"} 1\n"
    HEAD_MOONSCHED_POLICY_DISABLED
    "moonsched_policy_disabled{plugin=\"lua:g\\\"pu\",profile=\"default-scheduler\"} 1\n"
    "# HELP moonsched_shadow_decisions_total Choices of shadow policies, agreeing with their profile's (true) or not (false).\n"
    "# TYPE moonsched_shadow_decisions_total counter\n"
    "moonsched_shadow_decisions_total{policy=\"lua:next\",profile=\"gpu\",agree=\"true\"} 7\n"
    "moonsched_shadow_decisions_total{policy=\"lua:next\",profile=\"gpu\",agree=\"false\"} 3\n"
    "# HELP moonsched_shadow_skipped_total Cycles a shadow policy sat out while disabled or with no version loaded; not decisions.\n"
    "# TYPE moonsched_shadow_skipped_total counter\n"
    "moonsched_shadow_skipped_total{policy=\"lua:next\",profile=\"gpu\"} 5\n"
    "# HELP taint_eviction_controller_pod_deletions_total Total number of Pods deleted by TaintEvictionController since its start.\n"
    "# TYPE taint_eviction_controller_pod_deletions_total counter\n"
    "taint_eviction_controller_pod_deletions_total 1\n"
    "# HELP taint_eviction_controller_pod_deletion_duration_seconds Latency, in seconds, between the time when a taint effect has been activated for the Pod and its deletion via TaintEvictionController.\n"
    "# TYPE taint_eviction_controller_pod_deletion_duration_seconds histogram\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"0.005\"} 0\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"0.025\"} 0\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"0.1\"} 0\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"0.5\"} 1\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"1\"} 1\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"2.5\"} 1\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"10\"} 1\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"30\"} 1\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"60\"} 1\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"120\"} 1\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"180\"} 1\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"240\"} 1\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"+Inf\"} 1\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_sum 0.3\n"
    "taint_eviction_controller_pod_deletion_duration_seconds_count 1\n"
    HEAD_REST_CLIENT_REQUESTS_TOTAL
    "rest_client_requests_total{code=\"201\",host=\"127.0.0.1:6443\",method=\"POST\"} 1\n"
    "rest_client_requests_total{code=\"<error>\",host=\"127.0.0.1:6443\",method=\"GET\"} 1\n"
    "rest_client_requests_total{code=\"200\",host=\"127.0.0.1:6443\",method=\"GET\"} 1\n"
    "rest_client_requests_total{code=\"405\",host=\"127.0.0.1:6443\",method=\"other\"} 1\n"
    HEAD_REST_CLIENT_REQUEST_DURATION_SECONDS
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.005\"} 0\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.025\"} 0\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.1\"} 0\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.25\"} 0\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.5\"} 0\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"1\"} 0\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"2\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"4\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"8\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"15\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"30\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"60\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"+Inf\"} 1\n"
    "rest_client_request_duration_seconds_sum{host=\"127.0.0.1:6443\",verb=\"GET\"} 1.5\n"
    "rest_client_request_duration_seconds_count{host=\"127.0.0.1:6443\",verb=\"GET\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"0.005\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"0.025\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"0.1\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"0.25\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"0.5\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"1\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"2\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"4\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"8\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"15\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"30\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"60\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"+Inf\"} 1\n"
    "rest_client_request_duration_seconds_sum{host=\"127.0.0.1:6443\",verb=\"POST\"} 0.003\n"
    "rest_client_request_duration_seconds_count{host=\"127.0.0.1:6443\",verb=\"POST\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"0.005\"} 0\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"0.025\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"0.1\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"0.25\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"0.5\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"1\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"2\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"4\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"8\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"15\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"30\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"60\"} 1\n"
    "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"other\",le=\"+Inf\"} 1\n"
    "rest_client_request_duration_seconds_sum{host=\"127.0.0.1:6443\",verb=\"other\"} 0.01\n"
    "rest_client_request_duration_seconds_count{host=\"127.0.0.1:6443\",verb=\"other\"} 1\n"
    "# HELP scheduler_scheduler_cache_size Number of nodes, pods, and assumed (bound) pods in the scheduler cache.\n"
    "# TYPE scheduler_scheduler_cache_size gauge\n"
    "scheduler_scheduler_cache_size{type=\"nodes\"} 3\n"
    PROCESS_FAMILIES;

static const char golden_run_empty[] =
    HEAD_SCHEDULER_SCHEDULE_ATTEMPTS_TOTAL
    "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"} 0\n"
    "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"unschedulable\"} 0\n"
    "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"error\"} 0\n"
    HEAD_SCHEDULER_SCHEDULING_ATTEMPT_DURATION_SECONDS
    NO_ATTEMPT_DURATIONS("default-scheduler", "scheduled")
    NO_ATTEMPT_DURATIONS("default-scheduler", "unschedulable")
    NO_ATTEMPT_DURATIONS("default-scheduler", "error")
    HEAD_SCHEDULER_PENDING_PODS
    "scheduler_pending_pods{queue=\"active\"} 0\n"
    "scheduler_pending_pods{queue=\"backoff\"} 0\n"
    "scheduler_pending_pods{queue=\"unschedulable\"} 0\n"
    "scheduler_pending_pods{queue=\"gated\"} 0\n"
    HEAD_SCHEDULER_POD_SCHEDULING_ATTEMPTS
    "scheduler_pod_scheduling_attempts_bucket{le=\"1\"} 0\n"
    "scheduler_pod_scheduling_attempts_bucket{le=\"2\"} 0\n"
    "scheduler_pod_scheduling_attempts_bucket{le=\"4\"} 0\n"
    "scheduler_pod_scheduling_attempts_bucket{le=\"8\"} 0\n"
    "scheduler_pod_scheduling_attempts_bucket{le=\"16\"} 0\n"
    "scheduler_pod_scheduling_attempts_bucket{le=\"+Inf\"} 0\n"
    "scheduler_pod_scheduling_attempts_sum 0\n"
    "scheduler_pod_scheduling_attempts_count 0\n"
    HEAD_SCHEDULER_PREEMPTION_ATTEMPTS_TOTAL
    "scheduler_preemption_attempts_total 0\n"
    HEAD_SCHEDULER_PREEMPTION_VICTIMS
    "scheduler_preemption_victims_bucket{le=\"1\"} 0\n"
    "scheduler_preemption_victims_bucket{le=\"2\"} 0\n"
    "scheduler_preemption_victims_bucket{le=\"4\"} 0\n"
    "scheduler_preemption_victims_bucket{le=\"8\"} 0\n"
    "scheduler_preemption_victims_bucket{le=\"16\"} 0\n"
    "scheduler_preemption_victims_bucket{le=\"32\"} 0\n"
    "scheduler_preemption_victims_bucket{le=\"64\"} 0\n"
    "scheduler_preemption_victims_bucket{le=\"+Inf\"} 0\n"
    "scheduler_preemption_victims_sum 0\n"
    "scheduler_preemption_victims_count 0\n"
    HEAD_SCHEDULER_GOROUTINES
    "scheduler_goroutines{operation=\"binding\"} 0\n"
    HEAD_MOONSCHED_BINDINGS_TOTAL
    "moonsched_bindings_total{result=\"ok\"} 0\n"
    "moonsched_bindings_total{result=\"failed\"} 0\n"
    "moonsched_bindings_total{result=\"gone\"} 0\n"
    "moonsched_bindings_total{result=\"conflict\"} 0\n"
    HEAD_MOONSCHED_BINDING_CONFLICTS_TOTAL
    "moonsched_binding_conflicts_total{reason=\"other\"} 0\n"
    "moonsched_binding_conflicts_total{reason=\"already_bound\"} 0\n"
    "moonsched_binding_conflicts_total{reason=\"gated\"} 0\n"
    "moonsched_binding_conflicts_total{reason=\"uid_changed\"} 0\n"
    "moonsched_binding_conflicts_total{reason=\"being_deleted\"} 0\n"
    HEAD_MOONSCHED_AUTHENTICATION_ATTEMPTS_TOTAL
    "moonsched_authentication_attempts_total{result=\"success\"} 0\n"
    "moonsched_authentication_attempts_total{result=\"failure\"} 0\n"
    "moonsched_authentication_attempts_total{result=\"error\"} 0\n"
    "moonsched_authentication_attempts_total{result=\"throttled\"} 0\n"
    HEAD_MOONSCHED_API_REQUESTS_TOTAL
    HEAD_MOONSCHED_EVENTS_TOTAL
    "moonsched_events_total{result=\"posted\"} 0\n"
    "moonsched_events_total{result=\"failed\"} 0\n"
    "moonsched_events_total{result=\"suppressed\"} 0\n"
    HEAD_MOONSCHED_POLICY_RELOADS_TOTAL
    HEAD_MOONSCHED_POLICY_CALLS_TOTAL
    HEAD_MOONSCHED_POLICY_CALL_FAILURES_TOTAL
    HEAD_MOONSCHED_POLICY_BUDGET_KILLS_TOTAL
    HEAD_MOONSCHED_POLICY_DISABLED
    HEAD_REST_CLIENT_REQUESTS_TOTAL
    HEAD_REST_CLIENT_REQUEST_DURATION_SECONDS
    PROCESS_FAMILIES;

static const char golden_desched[] =
    HEAD_DESCHEDULER_PODS_EVICTED_TOTAL
    "descheduler_pods_evicted_total{namespace=\"default\",node=\"n1\",profile=\"p\",result=\"success\",strategy=\"LowNodeUtilization\"} 2\n"
    "descheduler_pods_evicted_total{namespace=\"we\\\"ird\",node=\"n2\",profile=\"p\",result=\"error\",strategy=\"PodLifeTime\"} 1\n"
    HEAD_DESCHEDULER_LOOP_DURATION_SECONDS
    "descheduler_loop_duration_seconds_bucket{le=\"0.01\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"0.025\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"0.05\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"0.1\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"0.25\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"0.5\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"1\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"2.5\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"5\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"10\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"25\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"50\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"100\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"250\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"500\"} 1\n"
    "descheduler_loop_duration_seconds_bucket{le=\"+Inf\"} 2\n"
    "descheduler_loop_duration_seconds_sum 700.02\n"
    "descheduler_loop_duration_seconds_count 2\n"
    HEAD_DESCHEDULER_STRATEGY_DURATION_SECONDS
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"0.01\"} 0\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"0.025\"} 0\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"0.05\"} 0\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"0.1\"} 0\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"0.25\"} 0\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"0.5\"} 1\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"1\"} 1\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"2.5\"} 1\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"5\"} 1\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"10\"} 1\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"25\"} 1\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"50\"} 1\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"100\"} 1\n"
    "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\",le=\"+Inf\"} 1\n"
    "descheduler_strategy_duration_seconds_sum{profile=\"p\",strategy=\"PodLifeTime\"} 0.3\n"
    "descheduler_strategy_duration_seconds_count{profile=\"p\",strategy=\"PodLifeTime\"} 1\n"
    HEAD_MOONSCHED_POLICY_RELOADS_TOTAL
    "moonsched_policy_reloads_total{plugin=\"DeschedulerPolicy\",profile=\"\",result=\"ok\"} 0\n"
    "moonsched_policy_reloads_total{plugin=\"DeschedulerPolicy\",profile=\"\",result=\"refused\"} 1\n"
    "moonsched_policy_reloads_total{plugin=\"lua:spread\",profile=\"\",result=\"ok\"} 1\n"
    "moonsched_policy_reloads_total{plugin=\"lua:spread\",profile=\"\",result=\"refused\"} 0\n"
    HEAD_LEADER_ELECTION_MASTER_STATUS
    "leader_election_master_status{name=\"descheduler\"} 1\n";

static const char golden_desched_empty[] =
    HEAD_DESCHEDULER_PODS_EVICTED_TOTAL
    HEAD_DESCHEDULER_LOOP_DURATION_SECONDS
    "descheduler_loop_duration_seconds_bucket{le=\"0.01\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"0.025\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"0.05\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"0.1\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"0.25\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"0.5\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"1\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"2.5\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"5\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"10\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"25\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"50\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"100\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"250\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"500\"} 0\n"
    "descheduler_loop_duration_seconds_bucket{le=\"+Inf\"} 0\n"
    "descheduler_loop_duration_seconds_sum 0\n"
    "descheduler_loop_duration_seconds_count 0\n"
    HEAD_DESCHEDULER_STRATEGY_DURATION_SECONDS
    HEAD_MOONSCHED_POLICY_RELOADS_TOTAL
    "moonsched_policy_reloads_total{plugin=\"DeschedulerPolicy\",profile=\"\",result=\"ok\"} 0\n"
    "moonsched_policy_reloads_total{plugin=\"DeschedulerPolicy\",profile=\"\",result=\"refused\"} 0\n";

#endif
