/**
 * `agent-airlock/didis`: the tool guard under the DID.is SDK's names, so code written for
 * that SDK reads the same here. Thin aliases: `createDidisGuard` is `createToolGuard` that
 * also takes a `client` (a {@link DidisClient}) in place of a `verifier`.
 *
 * @module
 */

import type { DidisClient } from "./didis-client.js";
import { didisVerifier } from "./didis-verifier.js";
import { ToolGuardError } from "./errors.js";
import {
  createToolGuard,
  type ToolCheck,
  type ToolGuard,
  type ToolGuardOptions,
  withToolGuard,
} from "./tool-guard.js";

export { definitionSha256 } from "../canonical/index.js";
export { type AttestResult, attestMcpPins } from "./attest.js";
export { issueDelegation } from "./delegation/issue.js";
export { verifyDelegation } from "./delegation/verify.js";
export { generateDelegationKey } from "./did/keys.js";
export { DidisClient, type DidisClientOptions } from "./didis-client.js";
export { didisVerifier } from "./didis-verifier.js";
export { localVerifier } from "./local-verifier.js";
export { pinToolDefinitions, type ToolPins } from "./pin-definitions.js";
export type { ToolGuard, ToolGuardDecision } from "./tool-guard.js";

/**
 * {@link ToolGuardError} under the DID.is SDK's name: same class, same codes.
 *
 * @example
 * ```ts
 * import { DidisGuardError } from "agent-airlock/didis";
 * import { ToolGuardError } from "agent-airlock/guard";
 * console.log(DidisGuardError === ToolGuardError); // true
 * ```
 */
export const DidisGuardError = ToolGuardError;
/** {@link ToolGuardError} under the DID.is SDK's name. */
export type DidisGuardError = ToolGuardError;

/** Options of {@link createDidisGuard}: a guard's options, with `client` allowed in place of `verifier`. */
export type DidisGuardOptions = Omit<ToolGuardOptions, "verifier"> &
  (
    | { client: DidisClient; verifier?: undefined }
    | { verifier: ToolGuardOptions["verifier"]; client?: undefined }
  );

function toGuardOptions(options: DidisGuardOptions): ToolGuardOptions {
  if (options === null || typeof options !== "object") {
    throw new ToolGuardError(
      "GUARD_MISCONFIGURED",
      undefined,
      "createDidisGuard needs an options object",
    );
  }
  const { client, verifier, ...rest } = options;
  if (client !== undefined && verifier !== undefined) {
    throw new ToolGuardError("GUARD_MISCONFIGURED", undefined, "give client or verifier, not both");
  }
  if (client !== undefined) return { ...rest, verifier: didisVerifier(client) };
  return { ...rest, verifier: verifier as ToolGuardOptions["verifier"] };
}

/**
 * `createToolGuard` under the DID.is SDK's name; `client` asks a DID.is-compatible service.
 *
 * @example
 * ```ts
 * import { DidisClient, createDidisGuard } from "agent-airlock/didis";
 * const guard = createDidisGuard({
 *   client: new DidisClient({ baseUrl: "http://127.0.0.1:8787" }),
 *   agent: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
 *   root: "did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf",
 * });
 * ```
 */
export function createDidisGuard(options: DidisGuardOptions): ToolGuard {
  return createToolGuard(toGuardOptions(options));
}

/**
 * `withToolGuard` under the DID.is SDK's name; `client` asks a DID.is-compatible service.
 *
 * @example
 * ```ts
 * import { DidisClient, withDidisGuard } from "agent-airlock/didis";
 * const forecast = withDidisGuard(async (city: string) => `Sunny in ${city}`, {
 *   client: new DidisClient({ baseUrl: "http://127.0.0.1:8787" }),
 *   agent: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
 *   root: "did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf",
 *   tool: "weather_forecast",
 *   capability: "weather:forecast",
 * });
 * ```
 */
export function withDidisGuard<A extends unknown[], R>(
  handler: (...args: A) => R,
  options: DidisGuardOptions & ToolCheck,
): (...args: A) => Promise<Awaited<R>> {
  const { tool, capability, definition } = options;
  return withToolGuard(handler, { ...toGuardOptions(options), tool, capability, definition });
}
