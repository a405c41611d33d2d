// A scripted Kubernetes API server for tests/cli/test_run_dra_api.sh, on
// 127.0.0.1 only; not part of moonsched. It stands for a 1.34 server
// serving resource.k8s.io/v1, which the 1.20 kube-apiserver of the
// end-to-end suites cannot: list and watch of the collections `run`
// watches (JSON shaped as a 1.34 server's), GET of a claim, the claim's
// status patch with its resourceVersion checked, bindings, events.
//
//   node dra_api_server.mjs DIR
// listens on an ephemeral port, writes it to DIR/port and serves until
// killed. The cluster: node n1 with one ResourceSlice (gpu-0 of driver
// gpu.example.com), DeviceClass gpu.example.com, claim ml/gpu (not
// allocated), pod ml/gpu-job using it. Scripted: the first patch of the
// claim (its finalizer, or its status) meets a claim another writer has
// just changed (its resourceVersion moves on, a label added, the watchers
// told) and is answered 409 Conflict; later ones apply when their
// resourceVersion is the claim's (a strategic merge patch of the claim
// adds to its finalizers; a merge patch of its status merges). Every
// request line goes to DIR/requests, every claim patch body to
// DIR/claim-patches, every binding to DIR/binds ("NAMESPACE/NAME NODE").
// FORBID (environment): comma-separated collections whose GET is
// answered 403, as to a role without their rules.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const dir = process.argv[2];
let rv = 10;
const next = () => String(++rv);
const meta = (name, namespace, extra = {}) =>
  ({ name, ...(namespace ? { namespace } : {}), uid: `uid-${name}`, resourceVersion: next(),
     creationTimestamp: '2026-01-01T00:00:00Z', ...extra });

const objects = {
  '/api/v1/nodes': [{
    apiVersion: 'v1', kind: 'Node', metadata: meta('n1', null, { labels: { 'kubernetes.io/hostname': 'n1' } }),
    status: { capacity: { cpu: '8', memory: '16Gi', pods: '110' },
              allocatable: { cpu: '8', memory: '16Gi', pods: '110' } },
  }],
  '/api/v1/pods': [{
    apiVersion: 'v1', kind: 'Pod', metadata: meta('gpu-job', 'ml'),
    spec: { schedulerName: 'default-scheduler',
            containers: [{ name: 'c', image: 'pause', resources: { claims: [{ name: 'gpu' }] } }],
            resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu' }] },
    status: { phase: 'Pending' },
  }],
  '/api/v1/namespaces': [{ apiVersion: 'v1', kind: 'Namespace', metadata: meta('ml') }],
  '/apis/resource.k8s.io/v1/deviceclasses': [{
    apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: meta('gpu.example.com'),
    spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] },
  }],
  '/apis/resource.k8s.io/v1/resourceslices': [{
    apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: meta('n1-gpus'),
    spec: { driver: 'gpu.example.com', nodeName: 'n1', pool: { name: 'n1', generation: 1, resourceSliceCount: 1 },
            devices: [{ name: 'gpu-0', attributes: { model: { string: 'a100' } } }] },
  }],
  '/apis/resource.k8s.io/v1/resourceclaims': [{
    apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: meta('gpu', 'ml'),
    spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } },
  }],
  '/apis/resource.k8s.io/v1/resourceclaimtemplates': [],
  '/apis/policy/v1/poddisruptionbudgets': [],
  '/apis/scheduling.k8s.io/v1/priorityclasses': [],
  '/api/v1/persistentvolumes': [],
  '/api/v1/persistentvolumeclaims': [],
  '/apis/storage.k8s.io/v1/storageclasses': [],
  '/apis/storage.k8s.io/v1/csinodes': [],
  '/apis/storage.k8s.io/v1/csidrivers': [],
  '/apis/storage.k8s.io/v1/csistoragecapacities': [],
  '/api/v1/services': [],
  '/api/v1/replicationcontrollers': [],
  '/apis/apps/v1/replicasets': [],
  '/apis/apps/v1/statefulsets': [],
};
const watchers = new Map();   // collection -> Set of responses
const claims = objects['/apis/resource.k8s.io/v1/resourceclaims'];
const pods = objects['/api/v1/pods'];
let conflictsLeft = 1;
const forbidden = new Set((process.env.FORBID ?? '').split(',').filter(Boolean));

const log = (file, line) => fs.appendFileSync(path.join(dir, file), line + '\n');
const send = (res, code, body) => {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
};
const status = (res, code, reason, message) =>
  send(res, code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code });
const changed = (collection, obj) => {
  obj.metadata.resourceVersion = next();
  for (const w of watchers.get(collection) ?? []) w.write(JSON.stringify({ type: 'MODIFIED', object: obj }) + '\n');
};
// RFC 7386 merge patch
const merge = (target, patch) => {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
};

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    log('requests', `${req.method} ${req.url}`);
    if (req.method === 'GET' && p === '/version')
      return send(res, 200, { major: '1', minor: '34', gitVersion: 'v1.34.0' });
    if (req.method === 'GET' && forbidden.has(p))
      return status(res, 403, 'Forbidden', `${p} is forbidden: User "u" cannot list resource`);
    if (req.method === 'GET' && p in objects) {
      if (url.searchParams.get('watch') === '1' || url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
        if (!watchers.has(p)) watchers.set(p, new Set());
        watchers.get(p).add(res);
        res.on('close', () => watchers.get(p).delete(res));
        return;
      }
      const kind = p === '/api/v1/pods' ? 'PodList' : 'List';
      return send(res, 200, { kind, apiVersion: 'v1', metadata: { resourceVersion: String(rv) }, items: objects[p] });
    }
    const claimPath = '/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/gpu';
    if (req.method === 'GET' && p === claimPath) return send(res, 200, claims[0]);
    if (req.method === 'PATCH' && (p === claimPath || p === claimPath + '/status')) {
      log('claim-patches', body.replace(/\n/g, ' '));
      const patch = JSON.parse(body);
      const claim = claims[0];
      if (conflictsLeft > 0) {
        conflictsLeft--;
        claim.metadata.labels = { touched: 'by-another-writer' };
        changed('/apis/resource.k8s.io/v1/resourceclaims', claim);
      }
      if (patch.metadata?.resourceVersion !== claim.metadata.resourceVersion)
        return status(res, 409, 'Conflict', 'Operation cannot be fulfilled on resourceclaims.resource.k8s.io "gpu": '
          + 'the object has been modified; please apply your changes to the latest version and try again');
      if (p === claimPath) {
        const have = claim.metadata.finalizers ?? [];
        claim.metadata.finalizers = [...have, ...(patch.metadata?.finalizers ?? []).filter((f) => !have.includes(f))];
      } else {
        claim.status = merge(claim.status, patch.status);
      }
      changed('/apis/resource.k8s.io/v1/resourceclaims', claim);
      return send(res, 200, claim);
    }
    const bind = p.match(/^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/binding$/);
    if (req.method === 'POST' && bind) {
      const pod = pods.find((x) => x.metadata.namespace === bind[1] && x.metadata.name === bind[2]);
      const node = JSON.parse(body).target?.name;
      log('binds', `${bind[1]}/${bind[2]} ${node}`);
      if (!pod) return status(res, 404, 'NotFound', `pods "${bind[2]}" not found`);
      pod.spec.nodeName = node;
      changed('/api/v1/pods', pod);
      return send(res, 201, { kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 });
    }
    if (req.method === 'POST' && /\/events$/.test(p)) return send(res, 201, JSON.parse(body || '{}'));
    if (req.method === 'PATCH' && /\/events\/|\/pods\/[^/]+\/status$/.test(p)) return send(res, 200, {});
    return status(res, 404, 'NotFound', 'the server could not find the requested resource');
  });
});
server.listen(0, '127.0.0.1', () => fs.writeFileSync(path.join(dir, 'port'), String(server.address().port)));
