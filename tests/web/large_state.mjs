// Builds the large pending state the web view's figures are measured on (docs/
// performance.md): one ClusterQueue without quota, 10 LocalQueues, N pending Workloads
// (default 50,000) created over plain HTTP against `kueuepp standalone`'s API server.
//
// usage: node large_state.mjs API_URL [N]
const [api, countText] = process.argv.slice(2);
const count = Number(countText || 50000);
const parallel = 8;

async function create(path, body) {
  const r = await fetch(api + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok && r.status !== 409) throw new Error(`POST ${path}: HTTP ${r.status} ${await r.text()}`);
}

const kueue = '/apis/kueue.x-k8s.io/v1beta2';
await create(`${kueue}/resourceflavors`, { apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ResourceFlavor', metadata: { name: 'default' } });
await create(`${kueue}/clusterqueues`, {
  apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', metadata: { name: 'big' },
  spec: { namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu'], flavors: [{ name: 'default', resources: [{ name: 'cpu', nominalQuota: '0' }] }] }] },
});
for (let i = 0; i < 10; i++) {
  await create(`${kueue}/namespaces/default/localqueues`, {
    apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'LocalQueue', metadata: { name: `lq-${i}`, namespace: 'default' }, spec: { clusterQueue: 'big' },
  });
}
let next = 0;
const started = Date.now();
async function worker() {
  while (next < count) {
    const i = next++;
    await create(`${kueue}/namespaces/default/workloads`, {
      apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Workload', metadata: { name: `wl-${i}`, namespace: 'default' },
      spec: {
        queueName: `lq-${i % 10}`, priority: (i % 3) * 100,
        podSets: [{ name: 'main', count: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '1' } } }] } } }],
      },
    });
  }
}
await Promise.all(Array.from({ length: parallel }, worker));
console.log(`created ${count} Workloads in ${((Date.now() - started) / 1000).toFixed(0)} s`);
