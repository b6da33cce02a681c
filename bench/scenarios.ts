import { Fixtures, Tenant } from './dataset';
import { Scenario } from './load';

const pick = <T>(values: T[]): T => values[Math.floor(Math.random() * values.length)];

export const FLOOR = 'health_live';

/** A bearer token for the tenant's client, from the service itself. */
export async function issueToken(baseUrl: string, tenant: Tenant): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: tokenBody(tenant),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

function tokenBody(tenant: Tenant): string {
  return new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: tenant.clientId,
    client_secret: tenant.clientSecret,
  }).toString();
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The single-record read (random ids) and the first page of the list: the scaling pass and the audit comparison reuse them. */
export function singleRead(token: string, meetingIds: string[]): Scenario {
  return {
    name: 'meeting',
    title: 'GET /v1/meetings/{id} (random ids)',
    path: () => `/v1/meetings/${pick(meetingIds)}`,
    headers: bearer(token),
  };
}

export function firstPage(token: string): Scenario {
  return { name: 'meetings_first_page', title: 'GET /v1/meetings?limit=100', path: '/v1/meetings?limit=100', headers: bearer(token) };
}

/** The change feed's first page and a page `changesDeepOffset` entries in (the scaling pass reuses them). */
export function changesPages(token: string, f: Pick<Fixtures, 'changesDeepOffset' | 'changesDeepCursor'>): Scenario[] {
  return [
    {
      name: 'changes_first_page',
      title: 'GET /v1/changes?limit=100 (from the beginning)',
      path: '/v1/changes?limit=100',
      headers: bearer(token),
    },
    {
      name: 'changes_deep_page',
      title: `GET /v1/changes?limit=100 at a cursor ${f.changesDeepOffset.toLocaleString('en')} entries deep`,
      path: `/v1/changes?limit=100&cursor=${f.changesDeepCursor}`,
      headers: bearer(token),
    },
  ];
}

/** A page of one owner's external meetings after an instant: three filters, the owner walk. */
export function filteredPage(token: string, f: Pick<Fixtures, 'ownerEmail' | 'meetingAfter'>): Scenario {
  const filtered = new URLSearchParams({ limit: '100', owner_email: f.ownerEmail, audience: 'external', meeting_after: f.meetingAfter });
  return {
    name: 'meetings_filtered',
    title: 'GET /v1/meetings?owner_email&audience&meeting_after',
    path: `/v1/meetings?${filtered.toString()}`,
    headers: bearer(token),
  };
}

/** Every scenario of the main pass, the floor first. */
export function mainScenarios(tenant: Tenant, token: string, f: Fixtures): Scenario[] {
  return [
    { name: FLOOR, title: 'GET /health/live (framework floor)', path: '/health/live' },
    { name: 'context', title: 'GET /v1/context', path: '/v1/context', headers: bearer(token) },
    singleRead(token, f.meetingIds),
    firstPage(token),
    {
      name: 'meetings_deep_page',
      title: `GET /v1/meetings?limit=100 at a cursor ${f.deepOffset.toLocaleString('en')} records deep`,
      path: `/v1/meetings?limit=100&cursor=${f.deepCursor}`,
      headers: bearer(token),
    },
    filteredPage(token, f),
    {
      name: 'transcript_1000',
      title: 'GET /v1/meetings/{id}/transcript (1,000 utterances)',
      path: `/v1/meetings/${f.transcriptMeetingId}/transcript`,
      headers: bearer(token),
    },
    {
      name: 'chat_messages',
      title: 'GET /v1/chat/{id}/messages?limit=100 (random chats)',
      path: () => `/v1/chat/${pick(f.chatIds)}/messages?limit=100`,
      headers: bearer(token),
    },
    { name: 'emails_page', title: 'GET /v1/emails?limit=100', path: '/v1/emails?limit=100', headers: bearer(token) },
    ...changesPages(token, f),
    {
      name: 'token',
      title: 'POST /oauth/token',
      method: 'POST',
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: tokenBody(tenant),
    },
  ];
}

interface Envelope {
  data: unknown;
  pagination?: { has_more: boolean };
}

/**
 * One request of each scenario, checked for what it must return, before anything is
 * measured: a scenario that answered 404 or an empty page fast would measure nothing.
 */
export async function preflight(baseUrl: string, scenarios: Scenario[], f: Partial<Fixtures>, chatMessages: number): Promise<void> {
  const checks: Record<string, (body: unknown) => string | null> = {
    meetings_first_page: (b) =>
      (b as Envelope).pagination?.has_more && (b as { data: unknown[] }).data.length === 100 ? null : 'not a full page',
    meetings_deep_page: (b) =>
      (b as { data: Array<{ id: string }> }).data[0]?.id === f.deepFirstId ? null : `does not start at ${f.deepFirstId}`,
    meetings_filtered: (b) => {
      const data = (b as { data: Array<{ owner: { email: string }; audience: string }> }).data;
      if (!data.length) return 'no records';
      return data.every((r) => r.owner.email.toLowerCase() === f.ownerEmail?.toLowerCase() && r.audience === 'external')
        ? null
        : 'a record outside the filter';
    },
    transcript_1000: (b) => {
      const n = (b as { data: { utterances: unknown[] | null } }).data.utterances?.length;
      return n === 1000 ? null : `${n} utterances`;
    },
    chat_messages: (b) => {
      const n = (b as { data: unknown[] }).data.length;
      return n === Math.min(100, chatMessages) ? null : `${n} messages`;
    },
    emails_page: (b) => ((b as { data: unknown[] }).data.length === 100 ? null : 'not a full page'),
    changes_first_page: (b) =>
      (b as Envelope).pagination?.has_more && (b as { data: unknown[] }).data.length === 100 ? null : 'not a full page',
    changes_deep_page: (b) => {
      const data = (b as { data: Array<{ id: string }> }).data;
      if (data.length !== 100) return `${data.length} entries`;
      return data[0].id === f.changesDeepFirstId ? null : `does not start at ${f.changesDeepFirstId}`;
    },
  };
  for (const scenario of scenarios) {
    const path = typeof scenario.path === 'string' ? scenario.path : scenario.path();
    const response = await fetch(`${baseUrl}${path}`, { method: scenario.method ?? 'GET', headers: scenario.headers, body: scenario.body });
    const text = await response.text();
    const wrong = response.status !== 200 ? `status ${response.status}` : (checks[scenario.name]?.(JSON.parse(text)) ?? null);
    if (wrong) throw new Error(`preflight of ${scenario.name} (${scenario.method ?? 'GET'} ${path}): ${wrong}: ${text.slice(0, 300)}`);
  }
}
