/**
 * The process's one JSON Schema validator for MCP: the SDK's own (Ajv with formats), the one SDK
 * clients check tool results with. Protocol servers take it for elicitation, which r3 does not use
 * (one shared instance spares each per-request server building its own); the toolset checks tool
 * results against their `outputSchema` with it (`R3_MCP_VALIDATE_OUTPUT`).
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

export const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();
