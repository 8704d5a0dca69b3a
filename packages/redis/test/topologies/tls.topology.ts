/**
 * TLS and ACL users: redis-servers started by the test with TLS only (`rediss://`, client
 * certificates required) and an ACL file whose one user may touch `hermes:` keys and channels only —
 * one node, and a 6-node Redis Cluster (TLS between its nodes too). The CA, the server's and the
 * client's certificates are made by the test with openssl.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, createCluster } from 'redis';
import type { SessionMessage } from '@hermes-mcp/core';
import { RedisClient, RedisCluster, RedisClusterClient, redisCluster } from '@hermes-mcp/redis';
import { NodeSecurity, RedisClusterNodes, startRedisCluster, startTlsRedis } from '../../../../test-support/redis/redis-topologies';
import { eventually } from '../../../../test-support/e2e';

const quiet = { warn: () => undefined };
const USER = 'hermes';
const PASSWORD = 'hermes-acl-password-0123456789';
const ADMIN_PASSWORD = 'admin-acl-password-0123456789';

let dir: string;
let pem: { ca: Buffer; cert: Buffer; key: Buffer };
let security: NodeSecurity;

/** A CA, a server certificate for 127.0.0.1 and a client certificate, signed by the CA. */
function makeCertificates(into: string): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: into, stdio: 'ignore' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=hermes-test-ca', '-keyout', 'ca.key', '-out', 'ca.crt');
  writeFileSync(join(into, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  for (const name of ['server', 'client']) {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=hermes-test-${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'san.ext', '-out', `${name}.crt`);
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hermes-redis-tls-'));
  makeCertificates(dir);
  // Hermes's user: hermes: keys and channels only, no admin or dangerous commands (but reading the
  // cluster's layout); an admin for redis-cli and replication; the default user off.
  writeFileSync(
    join(dir, 'users.acl'),
    [
      'user default off',
      `user ${USER} on >${PASSWORD} ~hermes:* &hermes:* +@all -@admin -@dangerous +cluster|slots +cluster|shards +cluster|nodes +cluster|info +info`,
      `user admin on >${ADMIN_PASSWORD} ~* &* +@all`,
      '',
    ].join('\n'),
  );
  pem = { ca: readFileSync(join(dir, 'ca.crt')), cert: readFileSync(join(dir, 'client.crt')), key: readFileSync(join(dir, 'client.key')) };
  const tlsFiles = ['--tls-cert-file', join(dir, 'server.crt'), '--tls-key-file', join(dir, 'server.key'), '--tls-ca-cert-file', join(dir, 'ca.crt')];
  security = {
    scheme: 'rediss',
    serverArgs: (port) => [
      '--port',
      '0',
      '--tls-port',
      String(port),
      ...tlsFiles,
      '--tls-auth-clients',
      'yes',
      '--aclfile',
      join(dir, 'users.acl'),
      '--masteruser',
      'admin',
      '--masterauth',
      ADMIN_PASSWORD,
    ],
    cliArgs: [
      '--tls',
      '--cacert',
      join(dir, 'ca.crt'),
      '--cert',
      join(dir, 'client.crt'),
      '--key',
      join(dir, 'client.key'),
      '--user',
      'admin',
      '--pass',
      ADMIN_PASSWORD,
      '--no-auth-warning',
    ],
  };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The stores and the bus between two instances. */
async function exercise(a: RedisCluster, b: RedisCluster): Promise<void> {
  const record = { id: 'tls-1', protocolVersion: '2025-11-25', clientInfo: { name: 'c', version: '1' }, clientCapabilities: {} };
  await a.sessionStore.create(record, 60_000);
  expect(await b.sessionStore.get('tls-1')).toEqual(record);
  await a.eventStore('tls-1').append('get.x', 1, { jsonrpc: '2.0', method: 'm' });
  expect((await b.eventStore('tls-1').replayAfter('get.x', 0))?.map((e) => e.seq)).toEqual([1]);
  const received: SessionMessage[] = [];
  await b.bus.join('tls-1', (m) => received.push(m));
  expect(await a.bus.publish('tls-1', { kind: 'stream' })).toBe(1);
  await eventually('the message arrived', () => received.length === 1);
}

describe('one node over TLS with an ACL user', () => {
  it('serves the stores and the bus over rediss:// with a client certificate, as a user held to hermes: keys; refuses a wrong password and a client without a certificate with HERMES_REDIS_UNAVAILABLE', async () => {
    const node = await startTlsRedis(security);
    const made: RedisCluster[] = [];
    try {
      const url = `rediss://${USER}:${PASSWORD}@127.0.0.1:${node.port}`;
      for (let i = 0; i < 2; i++) {
        const client = createClient({ url, disableOfflineQueue: true, socket: { tls: true, ...pem } });
        made.push(await redisCluster({ client, logger: quiet }));
      }
      await exercise(made[0], made[1]);
      // The ACL holds: keys outside hermes: are refused to this user.
      await expect((made[0].client as RedisClient).sendCommand(['GET', 'other:key'])).rejects.toThrow(/NOPERM/);

      const wrongPassword = createClient({ url: `rediss://${USER}:wrong@127.0.0.1:${node.port}`, socket: { tls: true, ...pem, reconnectStrategy: false } });
      await expect(redisCluster({ client: wrongPassword, logger: quiet, connectTimeout: 2_000 })).rejects.toMatchObject({ code: 'HERMES_REDIS_UNAVAILABLE' });
      wrongPassword.destroy();
      const noCertificate = createClient({ url, socket: { tls: true, ca: pem.ca, reconnectStrategy: false } });
      await expect(redisCluster({ client: noCertificate, logger: quiet, connectTimeout: 2_000 })).rejects.toMatchObject({ code: 'HERMES_REDIS_UNAVAILABLE' });
      noCertificate.destroy();
    } finally {
      for (const c of made) {
        await c.close();
        await (c.client as RedisClient).close();
      }
      await node.kill();
    }
  });
});

describe('a Redis Cluster over TLS with an ACL user', () => {
  let nodes: RedisClusterNodes;

  afterAll(async () => nodes?.stop());

  it('serves the stores and the bus, the nodes talking TLS to each other too', async () => {
    nodes = await startRedisCluster({
      ...security,
      serverArgs: (port) => [...security.serverArgs(port), '--tls-cluster', 'yes', '--tls-replication', 'yes'],
    });
    const made: RedisCluster[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const client = createCluster({
          rootNodes: nodes.rootNodes,
          defaults: { username: USER, password: PASSWORD, disableOfflineQueue: true, socket: { tls: true, ...pem } },
        });
        made.push(await redisCluster({ client, logger: quiet }));
      }
      await exercise(made[0], made[1]);
    } finally {
      for (const c of made) {
        await c.close();
        await (c.client as RedisClusterClient).close();
      }
    }
  });
});
