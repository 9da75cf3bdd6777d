/**
 * The one question a delegation verifier answers for the tool guard: may `agent`, under
 * the trusted `root`, use `capability` right now? Implemented offline by
 * `localVerifier` and remotely by `didisVerifier` (a DID.is-compatible service).
 *
 * A verifier that cannot answer throws (or rejects); the guard maps that to
 * `GUARD_UNAVAILABLE` and refuses. A verifier never answers ALLOW by default.
 */
export interface DelegationVerifier {
  verifyTool(request: VerifyToolRequest): Promise<VerifyToolResult>;
}

/** What the guard asks. All three are exact strings; `capability` is already validated. */
export interface VerifyToolRequest {
  /** The agent's DID (the last audience of its chain). */
  agent: string;
  /** The exact capability requested, e.g. `weather:forecast`. */
  capability: string;
  /** The DID of the trusted root the chain must start from. */
  root: string;
}

/** The verifier's answer. */
export interface VerifyToolResult {
  decision: "ALLOW" | "DENY";
  /** Why, for people and audit logs. */
  reason: string;
  /** The granted capability (possibly a `:*` grant) that matched, on ALLOW. */
  matchedCapability?: string;
  /** When the delegation stops being valid, as epoch seconds, on ALLOW. */
  expires?: number;
  /** The root the verifier actually checked against, when it reports one. */
  root?: string;
}
