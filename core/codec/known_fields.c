/* The field names of core/v1 Pod and Node and of every type below them
 * that the decoder reads, as of Kubernetes 1.36 (k8s.io/api), plus those
 * removed since that old files may still carry. A type whose fields the
 * decoder never reads (probes, security contexts, most volume sources) is
 * not listed below it: any value goes. */
#include "codec/known_fields.h"

#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
#include "codec/field_set.h"

#define END {NULL, NULL}
#define ANY(name) {name, NULL}

/* ---- meta/v1 ---- */

static const ms_field owner_reference[] = {ANY("apiVersion"), ANY("kind"), ANY("name"), ANY("uid"),
                                           ANY("controller"), ANY("blockOwnerDeletion"), END};
static const ms_field object_meta[] = {
    ANY("name"), ANY("generateName"), ANY("namespace"), ANY("selfLink"), ANY("uid"), ANY("resourceVersion"),
    ANY("generation"), ANY("creationTimestamp"), ANY("deletionTimestamp"), ANY("deletionGracePeriodSeconds"),
    ANY("labels"), ANY("annotations"), {"ownerReferences", owner_reference}, ANY("finalizers"),
    ANY("clusterName"), ANY("managedFields"), END};
static const ms_field label_selector_requirement[] = {ANY("key"), ANY("operator"), ANY("values"), END};
static const ms_field label_selector[] = {ANY("matchLabels"), {"matchExpressions", label_selector_requirement},
                                          END};

/* ---- affinity ---- */

static const ms_field node_selector_requirement[] = {ANY("key"), ANY("operator"), ANY("values"), END};
static const ms_field node_selector_term[] = {{"matchExpressions", node_selector_requirement},
                                              {"matchFields", node_selector_requirement}, END};
static const ms_field node_selector[] = {{"nodeSelectorTerms", node_selector_term}, END};
static const ms_field preferred_scheduling_term[] = {ANY("weight"), {"preference", node_selector_term}, END};
static const ms_field node_affinity[] = {
    {"requiredDuringSchedulingRequiredDuringExecution", node_selector},
    {"requiredDuringSchedulingIgnoredDuringExecution", node_selector},
    {"preferredDuringSchedulingIgnoredDuringExecution", preferred_scheduling_term}, END};
static const ms_field pod_affinity_term[] = {{"labelSelector", label_selector}, ANY("namespaces"),
                                             ANY("topologyKey"), {"namespaceSelector", label_selector},
                                             ANY("matchLabelKeys"), ANY("mismatchLabelKeys"), END};
static const ms_field weighted_pod_affinity_term[] = {ANY("weight"), {"podAffinityTerm", pod_affinity_term}, END};
static const ms_field pod_affinity[] = {
    {"requiredDuringSchedulingRequiredDuringExecution", pod_affinity_term},
    {"requiredDuringSchedulingIgnoredDuringExecution", pod_affinity_term},
    {"preferredDuringSchedulingIgnoredDuringExecution", weighted_pod_affinity_term}, END};
static const ms_field affinity[] = {{"nodeAffinity", node_affinity}, {"podAffinity", pod_affinity},
                                    {"podAntiAffinity", pod_affinity}, END};

/* ---- containers ---- */

static const ms_field resource_claim[] = {ANY("name"), ANY("request"), END};
static const ms_field resource_requirements[] = {ANY("limits"), ANY("requests"), {"claims", resource_claim}, END};
static const ms_field container_port[] = {ANY("name"), ANY("hostPort"), ANY("containerPort"), ANY("protocol"),
                                          ANY("hostIP"), END};
static const ms_field container[] = {
    ANY("name"), ANY("image"), ANY("command"), ANY("args"), ANY("workingDir"), {"ports", container_port},
    ANY("envFrom"), ANY("env"), {"resources", resource_requirements}, ANY("resizePolicy"), ANY("restartPolicy"),
    ANY("restartPolicyRules"), ANY("volumeMounts"), ANY("volumeDevices"), ANY("livenessProbe"),
    ANY("readinessProbe"), ANY("startupProbe"), ANY("lifecycle"), ANY("terminationMessagePath"),
    ANY("terminationMessagePolicy"), ANY("imagePullPolicy"), ANY("securityContext"), ANY("stdin"),
    ANY("stdinOnce"), ANY("tty"),
    ANY("targetContainerName"),    /* ephemeral containers */
    END};

/* ---- volumes: the sources the volume filters read ---- */

#define FS_TYPE_RO ANY("fsType"), ANY("readOnly")
static const ms_field pvc_source[] = {ANY("claimName"), ANY("readOnly"), END};
static const ms_field gce_pd[] = {ANY("pdName"), ANY("partition"), FS_TYPE_RO, END};
static const ms_field aws_ebs[] = {ANY("volumeID"), ANY("partition"), FS_TYPE_RO, END};
static const ms_field azure_disk[] = {ANY("diskName"), ANY("diskURI"), ANY("cachingMode"), ANY("kind"), FS_TYPE_RO,
                                      END};
static const ms_field azure_file[] = {ANY("secretName"), ANY("shareName"), ANY("readOnly"), END};
static const ms_field cinder[] = {ANY("volumeID"), ANY("secretRef"), FS_TYPE_RO, END};
static const ms_field iscsi[] = {ANY("targetPortal"), ANY("iqn"), ANY("lun"), ANY("iscsiInterface"),
                                 ANY("portals"), ANY("chapAuthDiscovery"), ANY("chapAuthSession"),
                                 ANY("secretRef"), ANY("initiatorName"), FS_TYPE_RO, END};
static const ms_field rbd[] = {ANY("monitors"), ANY("image"), ANY("pool"), ANY("user"), ANY("keyring"),
                               ANY("secretRef"), FS_TYPE_RO, END};
static const ms_field portworx[] = {ANY("volumeID"), FS_TYPE_RO, END};
static const ms_field vsphere[] = {ANY("volumePath"), ANY("fsType"), ANY("storagePolicyName"),
                                   ANY("storagePolicyID"), END};
static const ms_field ephemeral[] = {ANY("volumeClaimTemplate"), ANY("readOnly"), END};
static const ms_field volume[] = {
    ANY("name"), ANY("hostPath"), ANY("emptyDir"), {"gcePersistentDisk", gce_pd},
    {"awsElasticBlockStore", aws_ebs}, ANY("gitRepo"), ANY("secret"), ANY("nfs"), {"iscsi", iscsi},
    ANY("glusterfs"), {"persistentVolumeClaim", pvc_source}, {"rbd", rbd}, ANY("flexVolume"),
    {"cinder", cinder}, ANY("cephfs"), ANY("flocker"), ANY("downwardAPI"), ANY("fc"), {"azureFile", azure_file},
    ANY("configMap"), {"vsphereVolume", vsphere}, ANY("quobyte"), {"azureDisk", azure_disk},
    ANY("photonPersistentDisk"), ANY("projected"), {"portworxVolume", portworx}, ANY("scaleIO"),
    ANY("storageos"), ANY("csi"), {"ephemeral", ephemeral}, ANY("image"), END};

/* ---- the Pod ---- */

static const ms_field toleration[] = {ANY("key"), ANY("operator"), ANY("value"), ANY("effect"),
                                      ANY("tolerationSeconds"), END};
static const ms_field topology_spread_constraint[] = {
    ANY("maxSkew"), ANY("topologyKey"), ANY("whenUnsatisfiable"), {"labelSelector", label_selector},
    ANY("minDomains"), ANY("nodeAffinityPolicy"), ANY("nodeTaintsPolicy"), ANY("matchLabelKeys"), END};
static const ms_field scheduling_gate[] = {ANY("name"), END};
/* source: the one-level form before Kubernetes 1.31 */
static const ms_field claim_source[] = {ANY("resourceClaimName"), ANY("resourceClaimTemplateName"), END};
static const ms_field pod_resource_claim[] = {ANY("name"), {"source", claim_source}, ANY("resourceClaimName"),
                                              ANY("resourceClaimTemplateName"), END};
static const ms_field pod_os[] = {ANY("name"), END};
static const ms_field pod_spec[] = {
    {"volumes", volume}, {"initContainers", container}, {"containers", container},
    {"ephemeralContainers", container}, ANY("restartPolicy"), ANY("terminationGracePeriodSeconds"),
    ANY("activeDeadlineSeconds"), ANY("dnsPolicy"), ANY("nodeSelector"), ANY("serviceAccountName"),
    ANY("serviceAccount"), ANY("automountServiceAccountToken"), ANY("nodeName"), ANY("hostNetwork"),
    ANY("hostPID"), ANY("hostIPC"), ANY("shareProcessNamespace"), ANY("securityContext"),
    ANY("imagePullSecrets"), ANY("hostname"), ANY("subdomain"), {"affinity", affinity}, ANY("schedulerName"),
    {"tolerations", toleration}, ANY("hostAliases"), ANY("priorityClassName"), ANY("priority"),
    ANY("dnsConfig"), ANY("readinessGates"), ANY("runtimeClassName"), ANY("enableServiceLinks"),
    ANY("preemptionPolicy"), ANY("overhead"), {"topologySpreadConstraints", topology_spread_constraint},
    ANY("setHostnameAsFQDN"), {"os", pod_os}, ANY("hostUsers"), {"schedulingGates", scheduling_gate},
    {"resourceClaims", pod_resource_claim}, {"resources", resource_requirements}, ANY("hostnameOverride"),
    ANY("workloadRef"), ANY("schedulingGroup"), ANY("evictionResponders"), END};

static const ms_field pod_condition[] = {ANY("type"), ANY("observedGeneration"), ANY("status"),
                                         ANY("lastProbeTime"), ANY("lastTransitionTime"), ANY("reason"),
                                         ANY("message"), END};
static const ms_field state_waiting[] = {ANY("reason"), ANY("message"), END};
static const ms_field state_running[] = {ANY("startedAt"), END};
static const ms_field state_terminated[] = {ANY("exitCode"), ANY("signal"), ANY("reason"), ANY("message"),
                                            ANY("startedAt"), ANY("finishedAt"), ANY("containerID"), END};
static const ms_field container_state[] = {{"waiting", state_waiting}, {"running", state_running},
                                           {"terminated", state_terminated}, END};
static const ms_field container_status[] = {
    ANY("name"), {"state", container_state}, {"lastState", container_state}, ANY("ready"), ANY("restartCount"),
    ANY("image"), ANY("imageID"), ANY("containerID"), ANY("started"), ANY("allocatedResources"),
    ANY("resources"), ANY("volumeMounts"), ANY("user"), ANY("allocatedResourcesStatus"), ANY("stopSignal"), END};
static const ms_field pod_resource_claim_status[] = {ANY("name"), ANY("resourceClaimName"), END};
static const ms_field pod_status[] = {
    ANY("observedGeneration"), ANY("phase"), {"conditions", pod_condition}, ANY("message"), ANY("reason"),
    ANY("nominatedNodeName"), ANY("hostIP"), ANY("hostIPs"), ANY("podIP"), ANY("podIPs"), ANY("startTime"),
    {"initContainerStatuses", container_status}, {"containerStatuses", container_status}, ANY("qosClass"),
    {"ephemeralContainerStatuses", container_status}, ANY("resize"),
    {"resourceClaimStatuses", pod_resource_claim_status}, ANY("extendedResourceClaimStatus"),
    ANY("allocatedResources"), ANY("resources"), ANY("nodeAllocatableResourceClaimStatuses"),
    ANY("volumeHealth"), END};

static const ms_field pod[] = {ANY("apiVersion"), ANY("kind"), {"metadata", object_meta}, {"spec", pod_spec},
                               {"status", pod_status}, END};

/* ---- the Node ---- */

static const ms_field taint[] = {ANY("key"), ANY("value"), ANY("effect"), ANY("timeAdded"), END};
static const ms_field node_spec[] = {ANY("podCIDR"), ANY("podCIDRs"), ANY("providerID"), ANY("unschedulable"),
                                     {"taints", taint}, ANY("configSource"), ANY("externalID"),
                                     ANY("podPreemptionPolicy"), END};
static const ms_field node_condition[] = {ANY("type"), ANY("status"), ANY("lastHeartbeatTime"),
                                          ANY("lastTransitionTime"), ANY("reason"), ANY("message"), END};
static const ms_field container_image[] = {ANY("names"), ANY("sizeBytes"), END};
static const ms_field node_status[] = {
    ANY("capacity"), ANY("allocatable"), ANY("phase"), {"conditions", node_condition}, ANY("addresses"),
    ANY("daemonEndpoints"), ANY("nodeInfo"), {"images", container_image}, ANY("volumesInUse"),
    ANY("volumesAttached"), ANY("config"), ANY("runtimeHandlers"), ANY("features"), ANY("declaredFeatures"),
    END};

static const ms_field node[] = {ANY("apiVersion"), ANY("kind"), {"metadata", object_meta}, {"spec", node_spec},
                                {"status", node_status}, END};

typedef struct report {
    void (*fn)(void *ctx, const char *msg);
    void *ctx;
} report;

static void unknown(void *ctx, const char *path, const char *key, const char *const *names, size_t n) {
    report *r = ctx;
    const char *near = ms_suggest(key, names, n);
    char msg[700];
    snprintf(msg, sizeof msg, "unknown field \"%s\"%s%s%s", path, near ? " (did you mean \"" : "", near ? near : "",
             near ? "\"?)" : "");
    r->fn(r->ctx, msg);
}

void ms_unknown_fields(const char *kind, const cJSON *obj, void (*fn)(void *ctx, const char *msg), void *ctx) {
    const ms_field *fields = strcmp(kind, "Pod") == 0 ? pod : strcmp(kind, "Node") == 0 ? node : NULL;
    if (!fields) return;
    report r = {fn, ctx};
    ms_field_walk w = {.unknown = unknown, .ctx = &r};
    ms_field_walk_object(&w, obj, fields, "");
}
