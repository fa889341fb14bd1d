import { describe, expect, it } from "vitest";
import { SERVER_BUNDLE, SERVER_HEAP_FLAGS, serverNodeArgs } from "../../scripts/server-bundle.mjs";

describe("the node arguments of the compiled server", () => {
  it("run the bundle with our heap flags", () => {
    expect(serverNodeArgs("")).toEqual(["--max-old-space-size=512", "--max-semi-space-size=8", SERVER_BUNDLE]);
    expect(serverNodeArgs("--enable-source-maps")).toEqual([...SERVER_HEAP_FLAGS, SERVER_BUNDLE]);
  });

  it("run another bundle with the same flags when given one (bench/compare.ts)", () => {
    expect(serverNodeArgs("", "dist/server-old.mjs")).toEqual([...SERVER_HEAP_FLAGS, "dist/server-old.mjs"]);
    expect(serverNodeArgs("--max-semi-space-size=4", "dist/server-old.mjs")).toEqual(["--max-old-space-size=512", "dist/server-old.mjs"]);
  });

  it("leave a flag the operator sets in NODE_OPTIONS to the operator, in either spelling", () => {
    expect(serverNodeArgs("--max-old-space-size=2048")).toEqual(["--max-semi-space-size=8", SERVER_BUNDLE]);
    expect(serverNodeArgs("--trace-warnings --max_semi_space_size=32")).toEqual(["--max-old-space-size=512", SERVER_BUNDLE]);
    expect(serverNodeArgs("--max-old-space-size=256 --max-semi-space-size=4")).toEqual([SERVER_BUNDLE]);
  });
});
