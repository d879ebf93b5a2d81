/**
 * Git's index file (`.git/index`, version 2), written for an export's checkout so `git status` sees a
 * clean working tree without rehashing. Each entry carries the file's stat data (as `lstat` reports it,
 * truncated to 32 bits as git does), mode, blob id and path; the file ends with the SHA-1 of its bytes.
 */
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';

/** One checked-out file. */
export interface IndexEntry {
  path: string;
  sha: string;
  stat: BigIntStats;
}

const REGULAR_FILE_MODE = 0o100644;
const NAME_LENGTH_MASK = 0xfff;
const NS_PER_SECOND = 1_000_000_000n;

function u32(value: bigint): number {
  return Number(value & 0xffffffffn);
}

function encodeEntry({ path, sha, stat }: IndexEntry): Buffer {
  const name = Buffer.from(path, 'utf8');
  // 62 fixed bytes + name + 1–8 NULs, padded to a multiple of 8.
  const length = Math.floor((62 + name.length + 8) / 8) * 8;
  const entry = Buffer.alloc(length);
  const fields = [
    stat.ctimeNs / NS_PER_SECOND,
    stat.ctimeNs % NS_PER_SECOND,
    stat.mtimeNs / NS_PER_SECOND,
    stat.mtimeNs % NS_PER_SECOND,
    stat.dev,
    stat.ino,
    BigInt(REGULAR_FILE_MODE),
    stat.uid,
    stat.gid,
    stat.size,
  ];
  fields.forEach((value, index) => {
    entry.writeUInt32BE(u32(value), index * 4);
  });
  Buffer.from(sha, 'hex').copy(entry, 40);
  entry.writeUInt16BE(Math.min(name.length, NAME_LENGTH_MASK), 60);
  name.copy(entry, 62);
  return entry;
}

/** Encodes an index of regular files at stage 0, entries sorted by path bytes as git requires. */
export function encodeIndex(entries: readonly IndexEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const header = Buffer.alloc(12);
  header.write('DIRC', 0, 'ascii');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(sorted.length, 8);
  const body = Buffer.concat([header, ...sorted.map(encodeEntry)]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}
