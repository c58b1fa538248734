import { startApiServer } from '@kubeloop/apiserver';
const s = await startApiServer({});
const data = Array.from({ length: 40000 }, (_, i) => `  k${i}: v`).join('\n');
for (const n of ['w1','w2']) {
const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${n}\ndata:\n${data}\n`;
let ticks = 0, worst = 0, last = performance.now(); const iv = setInterval(() => { const now = performance.now(); worst = Math.max(worst, now - last); last = now; }, 2);
const t = performance.now();
const r = await fetch(s.url + '/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'content-type': 'application/yaml' }, body });
clearInterval(iv);
console.log(r.status, Math.round(performance.now() - t), 'worst loop gap', Math.round(worst));
}
await s.stop();
