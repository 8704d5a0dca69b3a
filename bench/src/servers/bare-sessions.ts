/**
 * What a new session costs Redis when node-redis alone does it, with no Hermes code: the record
 * kept with its expiry, the session's channel subscribed (`SUBSCRIBE` on a second connection of
 * one node, sharded `SSUBSCRIBE` on the slot's master of a cluster), and, when forgotten, the
 * record deleted and the channel left. The floor rows of the redis-cluster section use it, in the
 * runner (store level) and behind a bare route (`bare-redis.server.ts`).
 */
import { createClient, createCluster } from 'redis';

/** A session kept in Redis and forgotten, by node-redis alone. */
export interface BareSessions {
  keep(id: string, record: string): Promise<unknown>;
  forget(id: string): Promise<unknown>;
  close(): Promise<void>;
}

const listener = () => undefined;
const expiry = { expiration: { type: 'PX', value: 60_000 } } as const;

/** Connected to the one node at `url`, or (`cluster`) to the cluster `url` is a node of. */
export async function bareSessions(url: string, cluster: boolean): Promise<BareSessions> {
  if (cluster) {
    const client = createCluster({ rootNodes: [{ url }], defaults: { disableOfflineQueue: true } });
    await client.connect();
    return {
      keep: (id, record) => Promise.all([client.set(`s:{${id}}`, record, expiry), client.sSubscribe(`c:{${id}}`, listener)]),
      forget: (id) => Promise.all([client.del(`s:{${id}}`), client.sUnsubscribe(`c:{${id}}`, listener)]),
      close: () => client.close(),
    };
  }
  const client = createClient({ url, disableOfflineQueue: true });
  const subscriber = client.duplicate();
  await Promise.all([client.connect(), subscriber.connect()]);
  return {
    keep: (id, record) => Promise.all([client.set(`s:{${id}}`, record, expiry), subscriber.subscribe(`c:{${id}}`, listener)]),
    forget: (id) => Promise.all([client.del(`s:{${id}}`), subscriber.unsubscribe(`c:{${id}}`, listener)]),
    close: async () => {
      await Promise.allSettled([client.close(), subscriber.close()]);
    },
  };
}
