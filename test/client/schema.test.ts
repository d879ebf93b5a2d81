/**
 * The committed client types are those of the document this code serves. With R3_WRITE_CLIENT=1
 * (`npm run client:generate`) the test writes them instead.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientTypes, SCHEMA_FILE } from '../../client/generate.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

it('client/schema.d.ts is generated from the current OpenAPI document', async () => {
  const answer = await t.request('GET', '/api/v1/openapi.json');
  const generated = await clientTypes(answer.body);
  if (process.env.R3_WRITE_CLIENT === '1') writeFileSync(SCHEMA_FILE, generated);
  expect(readFileSync(SCHEMA_FILE, 'utf8'), 'client/schema.d.ts is stale: run npm run client:generate').toBe(
    generated,
  );
});
