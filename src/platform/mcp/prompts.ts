/**
 * MCP prompts (docs/mcp.md#prompts): `prompts/list` and `prompts/get` over what features register as
 * prompt sources (the workspace: every active prompt skill). Listing pages through the sources
 * (paging.ts). `prompts/get` of a name no
 * source knows for the caller's org is invalid params, as the specification says.
 */
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import { type Access, permits } from '../auth/guard.js';
import type { Principal } from '../auth/principal.js';
import { pageThrough, type SourcePage } from './paging.js';
import { invalidParams } from './protocol-errors.js';

/** One page of a source's prompts and the key to continue after (null: the end). */
export type PromptPage = SourcePage<Prompt>;

/** Prompts a feature serves (`platform.mcp.addPrompts`). */
export interface PromptSource {
  /** The REST access rule of the same read; a caller without it sees none of its prompts. */
  access: Access;
  list(principal: Principal, page: { limit: number; after?: string | undefined }): Promise<PromptPage>;
  /**
   * Prompt `name` rendered with `args` for the caller's org; null when it has none of that name.
   * Throws invalid params for a missing required argument.
   */
  get(principal: Principal, name: string, args: Record<string, string>): Promise<GetPromptResult | null>;
}

/** The prompts of one process, as the protocol methods answer them. */
export interface PromptCatalog {
  /** Whether any source is registered (the `prompts` capability is advertised only then). */
  readonly any: boolean;
  list(principal: Principal, cursor: string | undefined): Promise<{ prompts: Prompt[]; nextCursor?: string }>;
  get(principal: Principal, name: string, args: Record<string, string>): Promise<GetPromptResult>;
}

/** Prompts per `prompts/list` page. */
export const PROMPT_PAGE = 100;

export function createPromptCatalog(sources: readonly PromptSource[]): PromptCatalog {
  const readable = (principal: Principal) => sources.filter((source) => permits(principal, source.access));
  return {
    any: sources.length > 0,
    async list(principal, cursor) {
      const mine = readable(principal);
      const page = await pageThrough(sources, cursor, PROMPT_PAGE, (source, at) =>
        mine.includes(source) ? source.list(principal, at) : null,
      );
      return page.nextCursor ? { prompts: page.items, nextCursor: page.nextCursor } : { prompts: page.items };
    },
    async get(principal, name, args) {
      for (const source of readable(principal)) {
        const found = await source.get(principal, name, args);
        if (found) return found;
      }
      throw invalidParams(`No prompt ${JSON.stringify(name)} on this MCP server.`, { name });
    },
  };
}
