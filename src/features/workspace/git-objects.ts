/**
 * Git's object model, byte for byte, so a workspace version id is a real git commit id: exporting the
 * history gives a repository whose `git log` shows the same hashes r3 recorded on runs.
 *
 * - blob: `blob <length>\0<content>`
 * - tree: entries `<mode> <name>\0<20-byte sha>`, mode `100644` (file) or `40000` (directory), sorted by
 *   name bytes with a directory compared as if its name ended in `/`
 * - commit: `tree`, optional `parent`, `author`, `committer` lines, a blank line, the message
 * An object's id is the SHA-1 of `<type> <body length>\0<body>`.
 */
import { createHash } from 'node:crypto';

/** The object types a workspace uses. */
export type GitObjectType = 'blob' | 'tree' | 'commit';

/** An object as git stores it, before the `<type> <length>\0` header. */
export interface GitObject {
  type: GitObjectType;
  body: Buffer;
}

/** Id of the tree with no entries. */
export const EMPTY_TREE_SHA = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** How many hex characters of a commit sha make the `workspaceSha`. */
export const SHORT_SHA_LENGTH = 12;

/** The `workspaceSha` of a version: the first 12 hex characters of its commit sha. */
export function shortSha(sha: string): string {
  return sha.slice(0, SHORT_SHA_LENGTH);
}

/** An object with its header, as hashed and (deflated) stored by git. */
export function encodeObject(type: GitObjectType, body: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
}

/** The id (40 hex characters) of an object. */
export function hashObject(type: GitObjectType, body: Uint8Array): string {
  return createHash('sha1').update(encodeObject(type, body)).digest('hex');
}

/** The id of a blob; a string is encoded as UTF-8. Equals `git hash-object`. */
export function hashBlob(content: string | Uint8Array): string {
  return hashObject('blob', typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
}

/** A file tree's root id and every object (blobs, subtrees, root) it is made of, by id. */
export interface BuiltTree {
  rootSha: string;
  objects: Map<string, GitObject>;
}

type Node = { type: 'file'; sha: string } | { type: 'dir'; children: Map<string, Node> };

/**
 * Rejects paths git would refuse or that could escape a checkout: empty segments, `.`, `..`, any
 * `.git` segment (any case), NUL and backslash.
 */
export function assertTreePath(path: string): void {
  const segments = path.split('/');
  for (const segment of segments) {
    if (
      segment === '' ||
      segment === '.' ||
      segment === '..' ||
      segment.toLowerCase() === '.git' ||
      segment.includes('\0') ||
      segment.includes('\\')
    ) {
      throw new Error(`invalid workspace path "${path}"`);
    }
  }
}

function insert(root: Map<string, Node>, path: string, sha: string): void {
  assertTreePath(path);
  const segments = path.split('/');
  const name = segments.pop() as string;
  let dir = root;
  for (const segment of segments) {
    const node = dir.get(segment);
    if (node?.type === 'file')
      throw new Error(`"${path}" needs "${segment}" to be a directory, but it is a file`);
    if (node) dir = node.children;
    else {
      const children = new Map<string, Node>();
      dir.set(segment, { type: 'dir', children });
      dir = children;
    }
  }
  if (dir.has(name)) throw new Error(`"${path}" is both a file and a directory`);
  dir.set(name, { type: 'file', sha });
}

function writeTree(children: Map<string, Node>, objects: Map<string, GitObject>): string {
  const entries = [...children].map(([name, node]) => ({
    name,
    node,
    key: Buffer.from(node.type === 'dir' ? `${name}/` : name, 'utf8'),
  }));
  entries.sort((a, b) => Buffer.compare(a.key, b.key));
  const parts: Buffer[] = [];
  for (const { name, node } of entries) {
    const sha = node.type === 'dir' ? writeTree(node.children, objects) : node.sha;
    const mode = node.type === 'dir' ? '40000' : '100644';
    parts.push(Buffer.from(`${mode} ${name}\0`, 'utf8'), Buffer.from(sha, 'hex'));
  }
  const body = Buffer.concat(parts);
  const sha = hashObject('tree', body);
  objects.set(sha, { type: 'tree', body });
  return sha;
}

/**
 * Builds the git tree of a set of files (path → content; strings are UTF-8). All files get mode
 * `100644`. Throws on a path {@link assertTreePath} rejects or one that is both a file and a directory.
 */
export function buildTree(files: ReadonlyMap<string, string | Uint8Array>): BuiltTree {
  const objects = new Map<string, GitObject>();
  const root = new Map<string, Node>();
  for (const [path, content] of files) {
    const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    const sha = hashObject('blob', body);
    objects.set(sha, { type: 'blob', body });
    insert(root, path, sha);
  }
  return { rootSha: writeTree(root, objects), objects };
}

/** Who made a version. */
export interface GitIdentity {
  name: string;
  email: string;
}

/** What a commit records. */
export interface CommitInput {
  treeSha: string;
  parentSha: string | null;
  author: GitIdentity;
  /** Defaults to the author. */
  committer?: GitIdentity;
  /** Author and commit time; stored in whole seconds, UTC (`+0000`). */
  at: Date;
  message: string;
}

/** `<` `>` and line breaks would corrupt the ident line, which git fsck checks. */
function identPart(text: string, fallback: string): string {
  const cleaned = text
    .replace(/[<>\0\r\n]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned === '' ? fallback : cleaned;
}

function ident(who: GitIdentity, seconds: number): string {
  return `${identPart(who.name, 'unknown')} <${identPart(who.email, 'unknown@invalid')}> ${seconds} +0000`;
}

/**
 * Builds a commit object. Names and emails lose `<`, `>` and line breaks; the message has trailing
 * whitespace removed and ends in exactly one newline, as `git commit-tree -m` writes it.
 */
export function buildCommit(input: CommitInput): { sha: string; body: Buffer } {
  const seconds = Math.floor(input.at.getTime() / 1000);
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new Error('commit time must be a valid date after 1970');
  const message = input.message.trimEnd();
  if (message === '' || message.includes('\0')) throw new Error('commit message must be non-empty text');
  const lines = [`tree ${input.treeSha}`];
  if (input.parentSha) lines.push(`parent ${input.parentSha}`);
  lines.push(
    `author ${ident(input.author, seconds)}`,
    `committer ${ident(input.committer ?? input.author, seconds)}`,
  );
  const body = Buffer.from(`${lines.join('\n')}\n\n${message}\n`, 'utf8');
  return { sha: hashObject('commit', body), body };
}

/**
 * True when a write would make an empty commit: its tree is the parent's tree. Without a parent the
 * previous tree is the empty one, so an empty first write is not a version either.
 */
export function isEmptyCommit(treeSha: string, parentTreeSha: string | null): boolean {
  return treeSha === (parentTreeSha ?? EMPTY_TREE_SHA);
}

/** The tree id a commit body names. */
export function commitTreeSha(body: Uint8Array): string {
  const match = /^tree ([0-9a-f]{40})\n/.exec(Buffer.from(body).toString('utf8'));
  if (!match?.[1]) throw new Error('not a commit body');
  return match[1];
}
