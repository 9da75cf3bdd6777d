export {
  type DefinitionDiff,
  type DiffOptions,
  diffToolDefinitions,
  type FieldDiff,
  type JsonChange,
  type TextDiff,
  type TextPart,
} from "./diff.js";
export { type LoadPinOptions, type PinGuardOptions, ToolDefinitionPinGuard } from "./guard.js";
export { type AdmitOptions, admitToolsList, listingTools } from "./listing.js";
export {
  DEFAULT_PIN_FILE,
  DEFAULT_SERVER,
  type GuardFromPinFileOptions,
  guardFromPinFile,
  MAX_PIN_FILE_BYTES,
  PIN_FILE_VERSION,
  type PinFile,
  type PinFileEntry,
  type PinFileFromGuardOptions,
  type PinFileServer,
  parsePinFile,
  pinFileFromGuard,
  pinFileServerName,
  serializePinFile,
} from "./pin-file.js";
export {
  DEFAULT_PIN_FILE_LOCK_TIMEOUT_MS,
  type PinFileUpdate,
  type PinFileWriteOptions,
  readPinFile,
  updatePinFile,
  writePinFile,
} from "./pin-file-io.js";
export { type RenderDiffOptions, renderDefinitionDiff } from "./render-diff.js";
export type {
  ListingCheck,
  PinAuditEvent,
  PinDecision,
  PinnedField,
  PinVerdict,
  PinVersion,
  RefusalReason,
  RefusedTool,
  ToolDefinition,
} from "./types.js";
