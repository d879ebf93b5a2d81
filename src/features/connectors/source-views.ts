/**
 * Sources as the API shows them: the workspace's view of the manifest plus the connection — for a
 * kind with a connector, what the last check or sync found and whether credentials are set; for
 * other kinds (nothing checks them), the `connection.state` their manifest states.
 */
import type { ConnectionStore, ConnectionView } from './connections.js';
import { isConnectorKind } from './connector.js';

/** The connection fields every source view carries. */
export type SourceConnectionFields = Omit<ConnectionView, 'checkedAt'> & { checkedAt: string | null };

/** `items` with their connection fields. */
export async function withConnections<T extends { slug: string; kind: string; connectionState: string }>(
  store: ConnectionStore,
  orgId: number,
  items: readonly T[],
): Promise<Array<T & SourceConnectionFields>> {
  const connected = items.filter((item) => isConnectorKind(item.kind)).map((item) => item.slug);
  const views =
    connected.length > 0 ? await store.views(orgId, connected) : new Map<string, ConnectionView>();
  return items.map((item) => {
    const view = views.get(item.slug);
    if (view) return { ...item, ...view };
    return {
      ...item,
      connectionState: item.connectionState as ConnectionView['connectionState'],
      connectionError: null,
      credentialsSet: false,
      credentialsUpdatedAt: null,
      checkedAt: null,
    };
  });
}
