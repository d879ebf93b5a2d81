/**
 * The connector actions a proposal can carry (docs/api.md#sources-and-connectors): their names, the source
 * kind that executes each, and the zod schema of their params — one definition for `propose_action`'s
 * validation, the executing connector, and the docs.
 */
import { z } from 'zod';
import type { ConnectorKind } from './connector.js';

/** A HubSpot object id: digits, given as a string or a number. */
const hubspotId = z
  .union([z.string().regex(/^\d{1,20}$/, 'a HubSpot id is digits'), z.number().int().positive()])
  .transform(String);

const propertyValue = z.union([z.string().max(65_536), z.number(), z.boolean(), z.null()]);

/** `crm.update_deal`: sets properties of one HubSpot deal. */
export const updateDealParams = z.strictObject({
  dealId: hubspotId,
  properties: z
    .record(z.string().min(1).max(100), propertyValue)
    .refine((p) => Object.keys(p).length > 0, 'name at least one property'),
});

/** `crm.create_note`: a note, optionally associated with one deal, contact or company. */
export const createNoteParams = z
  .strictObject({
    body: z.string().min(1).max(65_536),
    dealId: hubspotId.optional(),
    contactId: hubspotId.optional(),
    companyId: hubspotId.optional(),
  })
  .refine(
    (p) => [p.dealId, p.contactId, p.companyId].filter((id) => id !== undefined).length <= 1,
    'associate the note with at most one of dealId, contactId, companyId',
  );

const address = z.email().max(320);

/** `mail.send`: a plain-text message, optionally a reply (`inReplyTo`: the Message-ID answered). */
export const sendMailParams = z.strictObject({
  to: z.union([address, z.array(address).min(1).max(50)]),
  subject: z.string().min(1).max(998),
  text: z.string().max(1_000_000),
  inReplyTo: z.string().min(1).max(998).optional(),
});

/** Every action: the source kind that executes it and its params. */
export const ACTIONS = {
  'crm.update_deal': { kind: 'crm', params: updateDealParams },
  'crm.create_note': { kind: 'crm', params: createNoteParams },
  'mail.send': { kind: 'mail', params: sendMailParams },
} as const satisfies Record<string, { kind: ConnectorKind; params: z.ZodType }>;

/** An action name. */
export type ActionName = keyof typeof ACTIONS;
/** Action names, for schemas and docs. */
export const ACTION_NAMES = Object.keys(ACTIONS) as [ActionName, ...ActionName[]];

/** A validated action with its params. */
export type ConnectorAction = {
  [Name in ActionName]: { action: Name; params: z.output<(typeof ACTIONS)[Name]['params']> };
}[ActionName];

/** The source kind that executes `action`. */
export function actionKind(action: ActionName): ConnectorKind {
  return ACTIONS[action].kind;
}

/**
 * Validates `params` for `action`: the action with its parsed params, or the issues (paths under
 * `params`).
 */
export function parseAction(
  action: ActionName,
  params: unknown,
): { ok: true; value: ConnectorAction } | { ok: false; issues: Array<{ field: string; message: string }> } {
  const result = ACTIONS[action].params.safeParse(params);
  if (!result.success) {
    return {
      ok: false,
      issues: result.error.issues.map((i) => ({
        field: ['params', ...i.path.map(String)].join('.'),
        message: i.message,
      })),
    };
  }
  return { ok: true, value: { action, params: result.data } as ConnectorAction };
}

/** A property value as a one-line description shows it. */
function shown(value: string | number | boolean | null): string {
  return value === null ? 'empty' : JSON.stringify(value);
}

/**
 * What `action` will do, in one line (a review item's summary): `Email to a@x, b@y: <subject>`,
 * `Update deal 42: dealstage → "closedwon", amount → 5000`, `Note on deal 42: <body>`.
 */
export function describeAction(action: ConnectorAction): string {
  switch (action.action) {
    case 'mail.send': {
      const to = Array.isArray(action.params.to) ? action.params.to.join(', ') : action.params.to;
      return `Email to ${to}: ${action.params.subject}`;
    }
    case 'crm.update_deal': {
      const changes = Object.entries(action.params.properties).map(
        ([name, value]) => `${name} → ${shown(value)}`,
      );
      return `Update deal ${action.params.dealId}: ${changes.join(', ')}`;
    }
    case 'crm.create_note': {
      const { dealId, contactId, companyId, body } = action.params;
      const on =
        dealId !== undefined
          ? ` on deal ${dealId}`
          : contactId !== undefined
            ? ` on contact ${contactId}`
            : companyId !== undefined
              ? ` on company ${companyId}`
              : '';
      return `Note${on}: ${body}`;
    }
  }
}
