/**
 * A machine definition (xstate's `toJSON()`, from `GET /api/v1/machines/:kind`) laid out by elkjs
 * (layered, nested states as compound nodes, edges labelled with their events), in absolute
 * coordinates ready to draw as SVG. elkjs is loaded on first use (its own chunk of the bundle).
 */

/** The parts of a state node of `toJSON()` the drawing reads. */
export interface MachineNode {
  id: string;
  key: string;
  type: string;
  states: Record<string, MachineNode>;
  transitions?: Array<{ eventType: string; target?: string[]; guard?: string | { type?: string } | null }>;
  /** Eventless transitions (r3 adds them to `toJSON()`, which leaves them out). */
  always?: Array<{ target?: string[]; guard?: string | null }>;
  initial?: { target?: string[] };
}

export interface LaidNode {
  /** The state's path below the root, dots between (`running`, `running.step`); the root is ''. */
  path: string;
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
  compound: boolean;
  final: boolean;
  initial: boolean;
}

export interface LaidEdge {
  id: string;
  from: string;
  to: string;
  event: string;
  points: Array<{ x: number; y: number }>;
  label: { text: string; x: number; y: number; width: number; height: number };
}

export interface Layout {
  width: number;
  height: number;
  nodes: LaidNode[];
  edges: LaidEdge[];
}

const CHAR = 7.2;
const LINE = 18;

/** How a transition reads on its edge: the event (`always`, `after …`), and its guard. */
function edgeText(t: { eventType: string; guard?: string | { type?: string } | null }): string {
  const event =
    t.eventType === '' ? 'always' : t.eventType.startsWith('xstate.after') ? 'after' : t.eventType;
  const guard = typeof t.guard === 'string' ? t.guard : t.guard?.type;
  return guard ? `${event} [${guard}]` : event;
}

/** The path below the root of a state id such as `workflow-run.running.step`. */
function pathOf(rootId: string, id: string): string {
  const bare = id.startsWith('#') ? id.slice(1) : id;
  return bare === rootId ? '' : bare.slice(rootId.length + 1);
}

interface ElkNode {
  id: string;
  width?: number;
  height?: number;
  x?: number;
  y?: number;
  labels?: Array<{ text: string; width: number; height: number }>;
  children?: ElkNode[];
  edges?: ElkEdge[];
  layoutOptions?: Record<string, string>;
}

interface ElkEdge {
  id: string;
  sources: string[];
  targets: string[];
  labels?: Array<{ text: string; width: number; height: number; x?: number; y?: number }>;
  sections?: Array<{
    startPoint: { x: number; y: number };
    endPoint: { x: number; y: number };
    bendPoints?: Array<{ x: number; y: number }>;
  }>;
}

/** Lays out `machine` (the root state node). */
export async function layoutMachine(machine: MachineNode): Promise<Layout> {
  const rootId = machine.id;
  const meta = new Map<string, { label: string; compound: boolean; final: boolean; initial: boolean }>();
  const edges: ElkEdge[] = [];
  const texts = new Map<string, { from: string; to: string; event: string }>();

  const toElk = (node: MachineNode, initialOfParent: boolean): ElkNode => {
    const path = pathOf(rootId, node.id);
    const children = Object.values(node.states ?? {});
    const initialTargets = new Set((node.initial?.target ?? []).map((t) => pathOf(rootId, t)));
    meta.set(path, {
      label: node.key,
      compound: children.length > 0,
      final: node.type === 'final',
      initial: initialOfParent,
    });
    const eventless = (node.always ?? []).map((t) => ({ ...t, eventType: '' }));
    for (const [i, t] of [...(node.transitions ?? []), ...eventless].entries()) {
      for (const [j, target] of (t.target?.length ? t.target : [node.id]).entries()) {
        const id = `e:${path}:${i}:${j}`;
        const text = edgeText(t);
        const to = pathOf(rootId, target);
        texts.set(id, { from: path, to, event: t.eventType });
        edges.push({
          id,
          sources: [`n:${path}`],
          targets: [`n:${to}`],
          labels: [{ text, width: text.length * CHAR + 8, height: LINE }],
        });
      }
    }
    const width = Math.max(90, node.key.length * CHAR + 28);
    if (children.length === 0) return { id: `n:${path}`, width, height: 38 };
    return {
      id: `n:${path}`,
      labels: [{ text: node.key, width, height: LINE }],
      layoutOptions: { 'elk.padding': '[top=34,left=16,bottom=16,right=16]' },
      children: children.map((child) => toElk(child, initialTargets.has(pathOf(rootId, child.id)))),
    };
  };

  const root = toElk(machine, false);
  const graph: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.edgeLabels.inline': 'false',
      'elk.layered.spacing.nodeNodeBetweenLayers': '70',
      'elk.spacing.nodeNode': '36',
      'elk.spacing.edgeLabel': '4',
      'elk.json.shapeCoords': 'ROOT',
      'elk.json.edgeCoords': 'ROOT',
    },
    children: [root],
    edges,
  };
  const { default: ELK } = await import('elkjs/lib/elk.bundled.js');
  const laid = (await new ELK().layout(graph as never)) as unknown as ElkNode;

  const nodes: LaidNode[] = [];
  const collect = (node: ElkNode) => {
    if (node.id.startsWith('n:')) {
      const path = node.id.slice(2);
      const m = meta.get(path);
      if (m && path !== '') {
        nodes.push({
          path,
          ...m,
          x: node.x ?? 0,
          y: node.y ?? 0,
          width: node.width ?? 0,
          height: node.height ?? 0,
        });
      }
    }
    for (const child of node.children ?? []) collect(child);
  };
  collect(laid);
  const laidEdges: LaidEdge[] = [];
  const gatherEdges = (node: ElkNode) => {
    for (const edge of node.edges ?? []) {
      const section = edge.sections?.[0];
      const info = texts.get(edge.id);
      const label = edge.labels?.[0];
      if (!section || !info || !label) continue;
      laidEdges.push({
        id: edge.id,
        ...info,
        points: [section.startPoint, ...(section.bendPoints ?? []), section.endPoint],
        label: {
          text: label.text,
          x: label.x ?? 0,
          y: label.y ?? 0,
          width: label.width,
          height: label.height,
        },
      });
    }
    for (const child of node.children ?? []) gatherEdges(child);
  };
  gatherEdges(laid);
  // The drawing's extent: every node, edge point and label, plus a margin.
  let width = 0;
  let height = 0;
  const reach = (x: number, y: number) => {
    width = Math.max(width, x);
    height = Math.max(height, y);
  };
  for (const n of nodes) reach(n.x + n.width, n.y + n.height);
  for (const e of laidEdges) {
    for (const p of e.points) reach(p.x, p.y);
    reach(e.label.x + e.label.width, e.label.y + e.label.height);
  }
  return { width: Math.ceil(width + 16), height: Math.ceil(height + 16), nodes, edges: laidEdges };
}
