import { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import { runCli } from './cli';
import type { Copy } from './sync-journal';
import { createTestApp } from './test-app';

/** The demo company `seed:demo` prints: its id and its client (every scope). */
export interface Demo {
  company_id: string;
  client_id: string;
  client_secret: string;
}

/** A test app listening on 127.0.0.1 (for processes and fetch), and a demo company made by `seed:demo` as a process. */
export async function servedDemo(): Promise<{ app: NestExpressApplication; base: string; demo: Demo }> {
  const app = await createTestApp();
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const seeded = await runCli({}, 'seed:demo', '--json');
  expect(seeded.code).toBe(0);
  return { app, base, demo: JSON.parse(seeded.stdout.trim()) as Demo };
}

/** A token of the client credentials, by a plain `POST /oauth/token` (no SDK: the truth a copy is compared with). */
export async function accessToken(base: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * Everything the API holds for the company now, in a sync copy's shape (keys `type:id`, each
 * object's details and parts), read through the list and detail routes with plain fetch, one
 * request per record and part: the truth a copy kept by the example or the SDK is compared with.
 */
export async function readEverything(base: string, token: string): Promise<Copy> {
  const bearer = { Authorization: `Bearer ${token}` };
  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers: bearer });
    expect([path, res.status]).toEqual([path, 200]);
    return (await res.json()) as {
      data: Array<Record<string, unknown>> & Record<string, unknown>;
      pagination?: { next_cursor: string | null };
    };
  };
  const all = async (path: string) => {
    const items: Array<Record<string, unknown>> = [];
    let cursor: string | null | undefined;
    do {
      const page = await get(`${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      items.push(...page.data);
      cursor = page.pagination?.next_cursor;
    } while (cursor);
    return items;
  };
  const copy: Copy = {};
  for (const [object, collection] of [
    ['meeting', 'meetings'],
    ['call', 'calls'],
  ]) {
    for (const item of await all(`/v1/${collection}`)) {
      const id = item.id as string;
      const at = `/v1/${collection}/${id}`;
      copy[`${object}:${id}`] = {
        object,
        id,
        parent_id: null,
        details: (await get(at)).data,
        evaluation: (await get(`${at}/evaluations/overall`)).data,
        answers: (await get(`${at}/answers`)).data,
        transcript: (await get(`${at}/transcript`)).data,
      };
    }
  }
  for (const [object, collection] of [
    ['email', 'emails'],
    ['chat', 'chat'],
  ]) {
    for (const item of await all(`/v1/${collection}`)) {
      const id = item.id as string;
      copy[`${object}:${id}`] = { object, id, parent_id: null, details: (await get(`/v1/${collection}/${id}`)).data };
      for (const message of await all(`/v1/${collection}/${id}/messages`)) {
        const key = `${object}_message:${message.id as string}`;
        copy[key] = { object: `${object}_message`, id: message.id as string, parent_id: id, details: message };
      }
    }
  }
  return copy;
}

/** The keys and parts where two copies differ. */
export function differences(copy: Copy, truth: Copy): string[] {
  const diffs: string[] = [];
  for (const key of new Set([...Object.keys(copy), ...Object.keys(truth)])) {
    if (!(key in copy)) diffs.push(`${key}: missing from the copy`);
    else if (!(key in truth)) diffs.push(`${key}: in the copy, gone from the API`);
    else
      for (const part of new Set([...Object.keys(copy[key]), ...Object.keys(truth[key])]))
        if (JSON.stringify(copy[key][part]) !== JSON.stringify(truth[key][part])) diffs.push(`${key}.${part} differs`);
  }
  return diffs;
}
