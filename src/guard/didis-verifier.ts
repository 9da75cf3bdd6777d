/**
 * Adapts a {@link DidisClient} to the tool guard's {@link DelegationVerifier}: every
 * question goes to the service; every failure is thrown (the guard turns it into
 * `GUARD_UNAVAILABLE` and refuses).
 *
 * @module
 */
import type { DidisClient } from "./didis-client.js";
import type { DelegationVerifier, VerifyToolRequest, VerifyToolResult } from "./verifier.js";

/**
 * A delegation verifier backed by a DID.is-compatible service.
 *
 * @example
 * ```ts
 * import { DidisClient, didisVerifier } from "agent-airlock/guard";
 * const verifier = didisVerifier(new DidisClient({ baseUrl: "http://127.0.0.1:8787" }));
 * await verifier.verifyTool({ agent: agentDid, capability: "weather:forecast", root: rootDid });
 * ```
 */
export function didisVerifier(client: DidisClient): DelegationVerifier {
  return {
    async verifyTool({ agent, capability, root }: VerifyToolRequest): Promise<VerifyToolResult> {
      const answer = await client.verifyTool({ agent, tool: capability, root });
      const result: VerifyToolResult = {
        decision: answer.decision,
        reason: answer.reason,
        root: answer.root,
      };
      if (answer.matchedCapability !== undefined)
        result.matchedCapability = answer.matchedCapability;
      if (answer.expires !== undefined) result.expires = answer.expires;
      return result;
    },
  };
}
