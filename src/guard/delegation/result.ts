/**
 * The shape of a chain verification: one entry per link and one PASS/FAIL check per rule,
 * mirroring a DID.is verification so a person can see why a chain was refused.
 *
 * @module
 */
import type { DidResolver } from "../did/resolver.js";
import type { ChainFailureCode } from "./errors.js";
import type { LinkClaims } from "./link.js";
import type { SignatureCache } from "./signature-cache.js";

/** One rule's outcome. */
export interface DelegationCheck {
  /** The rule, e.g. `signature`, `trusted_root`, `attenuation`. */
  rule: string;
  result: "PASS" | "FAIL";
  /** On FAIL, the stable code of the failure. */
  code?: ChainFailureCode;
  /** What was checked and what was found. */
  detail: string;
}

/** What verification found about one link. Fields a malformed link lacks are `null`. */
export interface LinkVerification {
  index: number;
  issuer: string | null;
  audience: string | null;
  capabilities: string[];
  notBefore: number | null;
  expires: number | null;
  jti: string | null;
  kid: string | null;
  alg: string | null;
  /** Lowercase hex SHA-256 of the link text (null when it is not even a string). */
  digest: string | null;
  /** The `prf` claim: the digest the link says its parent has. */
  parent: string | null;
  signatureValid: boolean;
  status: "VALID" | "INVALID";
  checks: DelegationCheck[];
}

/** The verdict on a chain, shaped like a DID.is verification. */
export interface DelegationVerification {
  status: "VALID" | "INVALID";
  /** The first failed rule's code, when INVALID. */
  code?: ChainFailureCode;
  /** The first link's issuer. */
  root: string | null;
  /** The last link's audience (the agent the chain delegates to). */
  leaf: string | null;
  /** Whether `root` is one of the trusted roots. */
  trustedRoot: boolean;
  /** What the leaf may do: the last link's grants when VALID, `[]` otherwise. */
  effectiveCapabilities: string[];
  /** The latest `nbf` of the chain, epoch seconds. */
  notBefore: number | null;
  /** The earliest `exp` of the chain, epoch seconds: the chain is void from then on. */
  notAfter: number | null;
  /** The time the chain was judged at, epoch seconds. */
  checkedAt: number;
  links: LinkVerification[];
  /** Chain-level checks, in the order they are reported. */
  checks: DelegationCheck[];
}

/** Options of `verifyDelegation`. */
export interface VerifyDelegationOptions {
  /** DIDs a chain may start from. Required: with none, every chain is refused. */
  trustedRoots: readonly string[];
  /** The DID the chain must end at (the last audience). */
  agent?: string;
  /** The time to judge at (epoch seconds or a Date; default: now). */
  now?: number | Date;
  /** Clock skew tolerated on `nbf` and `exp`, in seconds (default 60, at most 3600). */
  skewSeconds?: number;
  /** Most links accepted (default 10, at most 64). */
  maxLength?: number;
  /** Revocation by `jti`: return true when revoked. If it throws, the chain is refused. */
  isRevoked?: (jti: string, claims: LinkClaims) => boolean | Promise<boolean>;
  /** Resolves issuer DIDs to keys (default: did:key only, offline). */
  resolver?: DidResolver;
  /** Remembers links whose signature verified (used only with the built-in did:key resolver). */
  signatureCache?: SignatureCache;
}
