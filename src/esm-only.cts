/**
 * What `require("agent-airlock")` (or any subpath) loads from CommonJS: agent-airlock is
 * published as ES modules only, and this says so, with the fix, instead of Node's
 * `ERR_PACKAGE_PATH_NOT_EXPORTED` ("No exports main defined"), which names neither.
 * `package.json#exports` maps the `require` condition of every subpath here. Its error
 * cannot be an `AirlockError`: that class is in the ES modules CommonJS cannot load.
 */
const error = new Error(
  'agent-airlock is an ES module package and cannot be loaded with require(): use import (import { ToolDefinitionPinGuard } from "agent-airlock"), or await import("agent-airlock") from CommonJS. Node.js 20 or later.',
) as Error & { code: string };
error.code = "PACKAGE_ESM_ONLY";
throw error;
