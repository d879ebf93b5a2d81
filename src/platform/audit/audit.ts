/**
 * The audit log: one row per consequential call, carrying the `api_token_id` of the token used
 * (null for operator/CLI actions) and the actor string (`token:<id>`, `mcp`, `cli`).
 */
import type { Sql } from '../db/sql.js';

export interface AuditInput {
  orgId: number;
  apiTokenId: string | null;
  actor: string;
  action: string;
  targetKind?: string | null;
  targetId?: string | null;
  details?: Record<string, unknown>;
  requestId?: string | null;
  at: Date;
}

/** Adds an audit row through plain SQL (inside the caller's transaction when given one). */
export async function recordAuditSql(sql: Sql, input: AuditInput): Promise<void> {
  await sql.query(
    `insert into audit_log (org_id, api_token_id, actor, action, target_kind, target_id, details, request_id, at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      input.orgId,
      input.apiTokenId,
      input.actor,
      input.action,
      input.targetKind ?? null,
      input.targetId ?? null,
      JSON.stringify(input.details ?? {}),
      input.requestId ?? null,
      input.at,
    ],
  );
}
