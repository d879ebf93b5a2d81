import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildCommit,
  buildTree,
  commitTreeSha,
  EMPTY_TREE_SHA,
  hashBlob,
  isEmptyCommit,
  shortSha,
} from '../../../src/features/workspace/git-objects.js';
import { planVersion } from '../../../src/features/workspace/version.js';
import { git, tempDir, validTree } from './fixtures.js';

/** A tree whose entry order differs between naive string sorting and git's sorting. */
function trickyTree(): Map<string, string> {
  const tree = validTree();
  tree.set('a', 'a file named a\n');
  tree.set('a-b', 'dash\n');
  tree.set('a.b', 'dot\n');
  tree.set('ab/c', 'nested\n');
  tree.set('x/a/deep/file.txt', 'deep\n');
  tree.set('x/a-file', 'sibling\n');
  tree.set('x/a.file', 'sibling\n');
  tree.set('x/a0', 'zero\n');
  tree.set('é/ünïcode.md', 'héllo wörld ✓ 𝄞\n');
  tree.set('\uE000', 'private use area\n');
  tree.set('\u{1F600}', 'astral plane\n');
  tree.set('empty', '');
  return tree;
}

function gitRepo(): string {
  const dir = tempDir('git');
  git(dir, ['init', '-q', '-b', 'main']);
  return dir;
}

/** Writes files into a repository and lets git compute the tree. */
function gitWriteTree(files: Map<string, string>): string {
  const dir = gitRepo();
  for (const [path, content] of files) {
    const file = join(dir, ...path.split('/'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  git(dir, ['add', '-A']);
  return git(dir, ['write-tree']).trim();
}

describe('blobs', () => {
  it('hash as git hash-object does', () => {
    const dir = gitRepo();
    for (const content of ['', 'hello\n', 'no newline', 'ünïcode ✓ 𝄞\r\n\ttabs', 'x'.repeat(100_000)]) {
      expect(hashBlob(content)).toBe(git(dir, ['hash-object', '--stdin'], { input: content }).trim());
    }
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10]);
    expect(hashBlob(bytes)).toBe(git(dir, ['hash-object', '--stdin'], { input: bytes }).trim());
  });
});

describe('trees', () => {
  it('equal git write-tree, including git’s ordering of directories', () => {
    const files = trickyTree();
    expect(buildTree(files).rootSha).toBe(gitWriteTree(files));
  });

  it('equal git for a real workspace and for the empty tree', () => {
    expect(buildTree(validTree()).rootSha).toBe(gitWriteTree(validTree()));
    expect(buildTree(new Map()).rootSha).toBe(EMPTY_TREE_SHA);
    expect(git(gitRepo(), ['hash-object', '-t', 'tree', '--stdin'], { input: '' }).trim()).toBe(
      EMPTY_TREE_SHA,
    );
  });

  it('contain every blob and subtree, each object hashing to its key', () => {
    const { rootSha, objects } = buildTree(validTree());
    expect(objects.get(rootSha)?.type).toBe('tree');
    expect(objects.get(hashBlob(validTree().get('agents/sales.yaml') ?? ''))?.type).toBe('blob');
    const dir = gitRepo();
    for (const [sha, object] of objects) {
      expect(git(dir, ['hash-object', '-t', object.type, '--stdin'], { input: object.body }).trim()).toBe(
        sha,
      );
    }
    // root, agents, skills, skills/summarize, skills/draft-email, workflows, object-types, sources
    expect([...objects.values()].filter((o) => o.type === 'tree')).toHaveLength(8);
  });

  it('do not depend on insertion order, and change when any byte changes', () => {
    const files = validTree();
    const base = buildTree(files).rootSha;
    expect(buildTree(new Map([...files].reverse())).rootSha).toBe(base);
    for (const [path, content] of files) {
      const changed = new Map(files);
      changed.set(path, `${content} `);
      expect(buildTree(changed).rootSha, path).not.toBe(base);
    }
    const renamed = new Map(files);
    renamed.delete('sources/crm.yaml');
    renamed.set('sources/crm2.yaml', files.get('sources/crm.yaml') ?? '');
    expect(buildTree(renamed).rootSha).not.toBe(base);
  });

  it('reject paths git would not accept or that escape a checkout', () => {
    for (const path of [
      '',
      '/abs',
      'a//b',
      'a/',
      './a',
      'a/../b',
      '.git/config',
      'x/.GIT/y',
      'a\\b',
      'nul\0',
    ]) {
      expect(() => buildTree(new Map([[path, 'x']])), path).toThrow(/invalid workspace path/);
    }
    expect(() =>
      buildTree(
        new Map([
          ['a', '1'],
          ['a/b', '2'],
        ]),
      ),
    ).toThrow(/file/);
    expect(() =>
      buildTree(
        new Map([
          ['a/b', '1'],
          ['a', '2'],
        ]),
      ),
    ).toThrow(/directory/);
  });
});

describe('commits', () => {
  const author = { name: 'token:abc123', email: 'abc123@tokens.r3.local' };
  const at = new Date('2024-05-06T07:08:09.999Z');
  const unix = String(Math.floor(at.getTime() / 1000));
  const gitEnv = {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: `@${unix} +0000`,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
    GIT_COMMITTER_DATE: `@${unix} +0000`,
  };

  it('equal git commit-tree, with and without a parent', () => {
    const dir = gitRepo();
    const files = validTree();
    const tree = gitWriteTree(files);
    const first = buildCommit({
      treeSha: tree,
      parentSha: null,
      author,
      at,
      message: 'create skill summarize',
    });
    // git commit-tree needs the tree object in its repository.
    for (const [path, content] of files) {
      const file = join(dir, ...path.split('/'));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
    git(dir, ['add', '-A']);
    expect(git(dir, ['write-tree']).trim()).toBe(tree);
    const gitFirst = git(dir, ['commit-tree', tree, '-m', 'create skill summarize'], { env: gitEnv }).trim();
    expect(first.sha).toBe(gitFirst);

    const second = buildCommit({
      treeSha: tree,
      parentSha: first.sha,
      author,
      at,
      message: 'line one\n\nbody ✓',
    });
    const gitSecond = git(dir, ['commit-tree', tree, '-p', gitFirst, '-m', 'line one\n\nbody ✓'], {
      env: gitEnv,
    }).trim();
    expect(second.sha).toBe(gitSecond);
    expect(git(dir, ['cat-file', 'commit', gitSecond])).toBe(second.body.toString('utf8'));
    expect(commitTreeSha(second.body)).toBe(tree);
  });

  it('have the documented byte layout and clean identities', () => {
    const { body } = buildCommit({
      treeSha: EMPTY_TREE_SHA,
      parentSha: null,
      author: { name: 'Eve <evil>\nx', email: '<e@x>' },
      at,
      message: 'msg\n\n\n',
    });
    expect(body.toString('utf8')).toBe(
      `tree ${EMPTY_TREE_SHA}\nauthor Eve evil x <e@x> ${unix} +0000\ncommitter Eve evil x <e@x> ${unix} +0000\n\nmsg\n`,
    );
    expect(() =>
      buildCommit({ treeSha: EMPTY_TREE_SHA, parentSha: null, author, at, message: '  ' }),
    ).toThrow();
  });

  it('change when anything they record changes', () => {
    const base = { treeSha: EMPTY_TREE_SHA, parentSha: null, author, at, message: 'm' };
    const sha = buildCommit(base).sha;
    expect(buildCommit({ ...base }).sha).toBe(sha);
    expect(buildCommit({ ...base, message: 'n' }).sha).not.toBe(sha);
    expect(buildCommit({ ...base, at: new Date(at.getTime() + 1000) }).sha).not.toBe(sha);
    expect(buildCommit({ ...base, author: { ...author, name: 'other' } }).sha).not.toBe(sha);
    expect(buildCommit({ ...base, parentSha: sha }).sha).not.toBe(sha);
  });

  it('give the 12-character workspaceSha', () => {
    expect(shortSha('0123456789abcdef0123456789abcdef01234567')).toBe('0123456789ab');
  });
});

describe('versions', () => {
  const author = { name: 'mcp', email: 'mcp@r3.local' };
  const at = new Date('2024-01-01T00:00:00Z');

  it('make no commit when the tree equals the parent tree', () => {
    expect(isEmptyCommit(EMPTY_TREE_SHA, null)).toBe(true);
    expect(planVersion({ files: new Map(), parent: null, author, at, message: 'noop' })).toEqual({
      changed: false,
      sha: null,
      treeSha: EMPTY_TREE_SHA,
    });
    const first = planVersion({ files: validTree(), parent: null, author, at, message: 'v1' });
    if (!first.changed) throw new Error('first write must commit');
    expect(first.parentSha).toBeNull();
    expect(first.objects.get(first.sha)?.type).toBe('commit');
    const parent = { sha: first.sha, treeSha: first.treeSha };

    const same = planVersion({ files: validTree(), parent, author, at: new Date(), message: 'again' });
    expect(same).toEqual({ changed: false, sha: first.sha, treeSha: first.treeSha });
    expect(isEmptyCommit(first.treeSha, first.treeSha)).toBe(true);

    const edited = validTree();
    edited.set('skills/summarize/prompt.md', `${edited.get('skills/summarize/prompt.md')}!`);
    const second = planVersion({ files: edited, parent, author, at, message: 'v2' });
    expect(second.changed).toBe(true);
    if (second.changed) {
      expect(second.parentSha).toBe(first.sha);
      expect(second.sha).not.toBe(first.sha);
    }
  });
});
