/**
 * Flow label inference, rule by rule: what each kind of evidence gives, that a policy
 * entry and a declared `capabilities` list decide alone, that every label carries its
 * reason, and that hostile definitions and bad policy entries are handled.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WEB_DESCRIPTION_BIGRAMS } from "../../../src/scan/flows/lexicon.js";
import { WEB_PHRASE_WORDS } from "../../../src/scan/flows/phrases.js";
import {
  inferFlowLabels,
  PERMISSIVE_POLICY,
  parsePolicy,
  ScanPolicyError,
  type SecurityPolicy,
} from "../../../src/scan/index.js";

const labels = (tool: Record<string, unknown>, options = {}) =>
  inferFlowLabels({ name: "x", ...tool } as never, options).map((l) => l.label);
const props = (...names: string[]) => ({
  type: "object",
  properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])),
});

describe("inferred labels", () => {
  it("private-data: reads of files, databases, secrets, mail and stored objects", () => {
    expect(labels({ name: "read_file" })).toEqual(["private-data"]);
    expect(labels({ name: "query", inputSchema: props("sql") })).toEqual(["private-data"]);
    expect(labels({ name: "get_api_key" })).toEqual(["private-data"]);
    expect(labels({ name: "list_hosts" })).toEqual(["private-data"]);
    expect(labels({ name: "pods_list" })).toEqual(["private-data"]);
    expect(labels({ name: "get_info", inputSchema: props("projectPath") })).toEqual([
      "private-data",
    ]);
  });
  it("no private-data for public data, computations, or reads with no object", () => {
    expect(labels({ name: "get_forecast" })).toEqual([]);
    expect(labels({ name: "list_icons" })).toEqual([]);
    expect(labels({ name: "generate_chart", annotations: { readOnlyHint: true } })).toEqual([]);
    expect(labels({ name: "sequentialthinking", annotations: { readOnlyHint: true } })).toEqual([]);
  });
  it("untrusted-content: the web, issues, mail, messages, browser pages", () => {
    expect(labels({ name: "web_search" })).toEqual(["untrusted-content"]);
    expect(labels({ name: "search_engine" })).toEqual(["untrusted-content"]);
    expect(labels({ name: "list_issues" })).toEqual(["private-data", "untrusted-content"]);
    expect(labels({ name: "search_emails" })).toEqual(["private-data", "untrusted-content"]);
    expect(labels({ name: "get_work_item" })).toEqual(["private-data", "untrusted-content"]);
    expect(labels({ name: "browser_snapshot" })).toEqual(["untrusted-content"]);
    expect(labels({ name: "browser_wait" })).toEqual([]);
    const discover = {
      name: "discover",
      description: "Search the web and rank results.",
      annotations: { readOnlyHint: true },
    };
    expect(labels(discover)).toEqual(["untrusted-content"]);
  });
  it("public-sink: sending, publishing, writing shared text, requesting a chosen address", () => {
    expect(labels({ name: "send_email" })).toEqual(["public-sink"]);
    expect(labels({ name: "slack_post_message" })).toEqual(["public-sink"]);
    expect(labels({ name: "push_files" })).toEqual(["public-sink"]);
    expect(labels({ name: "create_issue", inputSchema: props("title", "body") })).toEqual([
      "public-sink",
    ]);
    expect(labels({ name: "fetch_html", inputSchema: props("url") })).toEqual([
      "untrusted-content",
      "public-sink",
    ]);
    expect(labels({ name: "browser_type" })).toEqual(["public-sink"]);
    expect(labels({ name: "create_message_thing", inputSchema: props("channel", "text") })).toEqual(
      ["public-sink"],
    );
  });
  it("no public-sink without data to carry or a shared place", () => {
    expect(labels({ name: "add_issue_label", inputSchema: props("issueId", "labelId") })).toEqual(
      [],
    );
    expect(labels({ name: "modify_email", inputSchema: props("messageId") })).toEqual([]);
    expect(labels({ name: "add_reaction", inputSchema: props("channel_id", "reaction") })).toEqual(
      [],
    );
    expect(labels({ name: "update_bookmark", inputSchema: props("url", "title") })).toEqual([]);
    expect(labels({ name: "create_note", inputSchema: props("text") })).toEqual([]);
  });
  it("destructive: deletes, replaces, installs, runs code, and destructiveHint: true", () => {
    expect(labels({ name: "delete_user" })).toEqual(["destructive"]);
    expect(labels({ name: "jira_put" })).toEqual(["destructive"]);
    expect(labels({ name: "install_package" })).toEqual(["destructive"]);
    expect(labels({ name: "run_shell", inputSchema: props("command") })).toEqual([
      "private-data",
      "public-sink",
      "destructive",
    ]);
    expect(labels({ name: "execute_sql", inputSchema: props("sql") })).toEqual([
      "private-data",
      "destructive",
    ]);
    expect(labels({ name: "toggle", annotations: { destructiveHint: true } })).toEqual([
      "destructive",
    ]);
    expect(
      labels({
        name: "write_note",
        description: "Creates or permanently overwrites the note.",
      }),
    ).toEqual(["destructive"]);
  });
  it("not destructive: detaching a link, a fixed program, a lone run verb", () => {
    expect(labels({ name: "remove_label_from_issue" })).toEqual([]);
    expect(
      labels({
        name: "removeGmailLabel",
        annotations: { readOnlyHint: false, destructiveHint: false },
      }),
    ).toEqual([]);
    expect(labels({ name: "knip-run" })).toEqual(["private-data"]);
  });
});

describe("evidence and authority", () => {
  it("every label names its reason", () => {
    const [untrusted, sink] = inferFlowLabels({
      name: "fetch_html",
      inputSchema: props("url"),
    });
    expect(untrusted).toEqual({
      label: "untrusted-content",
      source: "capability",
      evidence: 'capability net.outbound (name token "fetch")',
    });
    expect(sink).toMatchObject({ label: "public-sink", source: "argument" });
    expect(sink?.evidence).toContain('argument "url"');
  });
  it("a declared capabilities list decides alone", () => {
    const got = inferFlowLabels({
      name: "fetch_html",
      inputSchema: props("url"),
      capabilities: ["fs.read"],
    });
    expect(got).toEqual([
      { label: "private-data", source: "explicit", evidence: 'capabilities list has "fs.read"' },
    ]);
  });
  it("a policy entry decides over both, first match first, by name or server/name", () => {
    const policy = parsePolicy({
      extends: "permissive",
      flows: {
        labels: [
          { tools: "db/query", labels: ["private-data", "untrusted-content"] },
          { tools: "fetch_*", labels: [] },
          { tools: "fetch_html", labels: ["destructive"] },
        ],
      },
    });
    const query = { name: "query", inputSchema: props("sql") };
    expect(labels(query, { policy, server: "db" })).toEqual(["private-data", "untrusted-content"]);
    expect(labels(query, { policy, server: "other" })).toEqual(["private-data"]);
    expect(labels(query, { policy })).toEqual(["private-data"]);
    expect(labels({ name: "fetch_html", inputSchema: props("url") }, { policy })).toEqual([]);
    expect(inferFlowLabels({ name: "query" }, { policy, server: "db" })[0]?.evidence).toBe(
      'policy flows.labels "db/query"',
    );
  });
  it("annotations may narrow only as the policy lets them", () => {
    const tool = { name: "delete_user", annotations: { readOnlyHint: true } };
    expect(labels(tool)).toEqual([]);
    const camouflage = parsePolicy({ extends: "deny-by-default" });
    expect(labels(tool, { policy: camouflage })).toEqual(["destructive"]);
  });
});

describe("the description pre-check", () => {
  it("every web phrase holds one of the words the cheap search looks for", () => {
    for (const phrase of WEB_DESCRIPTION_BIGRAMS)
      expect(
        WEB_PHRASE_WORDS.some((w) => phrase.includes(w)),
        phrase,
      ).toBe(true);
  });
});

describe("hostile input and bad policies", () => {
  it("never throws on any definition, and never mutates it", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), fc.anything(), (n, d, s, a) => {
        const tool = { name: n, description: d, inputSchema: s, annotations: a };
        const before = JSON.stringify(tool);
        inferFlowLabels(tool as never);
        expect(JSON.stringify(tool)).toBe(before);
      }),
      { numRuns: 500 },
    );
  });
  it("refuses a server that is not a string and a policy that is not one", () => {
    expect(() => inferFlowLabels({ name: "x" }, { server: 7 as never })).toThrow(
      expect.objectContaining({ code: "SCAN_OPTIONS_INVALID" }),
    );
    expect(() => inferFlowLabels({ name: "x" }, { policy: {} as never })).toThrow(
      expect.objectContaining({ code: "SCAN_POLICY_INVALID" }),
    );
  });
  it("refuses flow entries that are not a glob with known, distinct labels", () => {
    const bad = [
      { labels: [{ tools: "", labels: [] }] },
      { labels: [{ tools: "x", labels: ["private"] }] },
      { labels: [{ tools: "x", labels: ["destructive", "destructive"] }] },
      { labels: [{ tools: "x" }] },
      { labels: [{ tools: "x", labels: [], why: "typo" }] },
      { label: [] },
      [],
    ];
    for (const flows of bad) {
      expect(() => parsePolicy({ flows }), JSON.stringify(flows)).toThrow(ScanPolicyError);
      const handBuilt = { ...PERMISSIVE_POLICY, flows } as unknown as SecurityPolicy;
      expect(() => inferFlowLabels({ name: "x" }, { policy: handBuilt })).toThrow(
        /SCAN_POLICY_INVALID|flows/,
      );
    }
  });
});
