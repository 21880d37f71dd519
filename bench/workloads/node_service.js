// A small web service and the load that drives it, in one process: what a Node.js user's program
// looks like rather than the smallest script that runs. An HTTP server on a local port answers
// four kinds of request through async handlers that await timers; each parses a JSON body,
// hashes with node's crypto, renders template strings, and one kind sieves primes. A client in
// the same process keeps a few requests in flight until the time is up.
//
//   node [--perf-prof | --perf-basic-prof] node_service.js SECONDS
'use strict';
const http = require('http');
const crypto = require('crypto');
const { setTimeout: sleep } = require('timers/promises');

const seconds = Number(process.argv[2] || 2);
const inFlight = 8;

function sieve(limit) {
  const composite = new Uint8Array(limit + 1);
  const primes = [];
  for (let i = 2; i <= limit; ++i) {
    if (composite[i]) continue;
    primes.push(i);
    for (let j = i * i; j <= limit; j += i) composite[j] = 1;
  }
  return primes;
}

function renderUser(user, orders) {
  const rows = orders
    .map((o) => `<tr><td>${o.id}</td><td>${o.item}</td><td>${(o.cents / 100).toFixed(2)}</td></tr>`)
    .join('\n');
  return `<h1>${user.name} (${user.email})</h1>\n<table>\n${rows}\n</table>`;
}

function digest(text, rounds) {
  let value = text;
  for (let i = 0; i < rounds; ++i) value = crypto.createHash('sha256').update(value).digest('hex');
  return value;
}

const handlers = {
  async user(body) {
    await sleep(1);
    const orders = [];
    for (let i = 0; i < body.orders; ++i) {
      orders.push({ id: body.id * 100 + i, item: `item-${(i * 7) % 13}`, cents: 199 + i * 37 });
    }
    return { html: renderUser({ name: `user${body.id}`, email: `u${body.id}@example.com` }, orders) };
  },
  async token(body) {
    await sleep(0);
    return { token: digest(`${body.user}:${body.nonce}`, 20) };
  },
  async primes(body) {
    const primes = sieve(body.limit);
    await sleep(0);
    return { count: primes.length, last: primes[primes.length - 1] };
  },
  async report(body) {
    const rows = [];
    for (let i = 0; i < body.rows; ++i) rows.push({ day: i, total: (i * 7919) % 1000, tag: `d${i}` });
    const encoded = JSON.stringify(rows);
    await sleep(1);
    const decoded = JSON.parse(encoded);
    return { sum: decoded.reduce((s, r) => s + r.total, 0), bytes: encoded.length };
  },
};

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const kind = req.url.slice(1);
    const handler = handlers[kind];
    if (!handler) {
      res.writeHead(404).end();
      return;
    }
    const result = await handler(JSON.parse(Buffer.concat(chunks).toString()));
    const text = JSON.stringify(result);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
});

const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
let served = 0;

function request(port, kind, body) {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = http.request({ port, path: `/${kind}`, method: 'POST', agent,
                               headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
    });
    req.on('error', reject);
    req.end(text);
  });
}

async function client(port, end, n) {
  for (let i = n; Date.now() < end; i += inFlight) {
    const kind = ['user', 'token', 'primes', 'report'][i % 4];
    const body = { id: i, orders: 20 + (i % 30), user: `u${i}`, nonce: i * 31, limit: 20000 + (i % 7) * 5000,
                   rows: 200 + (i % 50) };
    const answer = await request(port, kind, body);
    if (answer === undefined) throw new Error('no answer');
    ++served;
  }
}

server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address();
  const end = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: inFlight }, (_, n) => client(port, end, n)));
  agent.destroy();
  server.close();
  if (served === 0) throw new Error('no request served');
});
