import { describe, expect, it } from "vitest";
import { decideOn, findingOf, severity, type CallSpec } from "../support/window.js";

// A pager's declared nature gives it a detector of its own: pages ahead are progress however many
// there are, pages behind (fetched already, same records) are not.

const pager = { tools: { list_orders: { nature: "pagination" as const } } };
const page = (n: number, result?: unknown, customer = "cust_001"): CallSpec => ({
  tool: "list_orders",
  args: { customer_id: customer, page: n, page_size: 10 },
  ...(result === undefined ? {} : { result }),
});
const records = (n: number) => ({ orders: [{ id: `ord_${10 * n + 1}` }, { id: `ord_${10 * n + 2}` }], page: n, next_page: n + 1 });
const cursorPage = (cursor: string | null, ids?: string[], next?: string): CallSpec => ({
  tool: "list_orders",
  args: { customer_id: "cust_001", cursor },
  ...(ids ? { result: { data: ids.map((id) => ({ id })), next_cursor: next ?? null } } : {}),
});

describe("page_revisit (pagination nature)", () => {
  it("lets a pager move on through however many pages bring new records", () => {
    const pages = Array.from({ length: 40 }, (_, i) => page(i + 1, records(i + 1)));
    const decision = decideOn([...pages, page(41)], { policy: pager });
    expect(decision.state).toBe("CLOSED");
  });

  it("counts a page fetched again with the same records as no progress at once, and stops the second", () => {
    const again = decideOn([page(1, records(1)), page(2, records(2)), page(1)], { policy: pager });
    expect(findingOf(again, "page_revisit")).toMatchObject({ severity: "warn", steps: [3], count: 1 });
    const twice = decideOn([page(1, records(1)), page(2, records(2)), page(1, records(1)), page(2)], { policy: pager });
    expect(findingOf(twice, "page_revisit")).toMatchObject({ severity: "block", steps: [3, 4], count: 2 });
    expect(findingOf(twice, "page_revisit")!.message).toMatch(/list_orders has gone back twice to a page of this listing it had already fetched/);
  });

  it("stops a cursor that cycles back over the listing", () => {
    const cycle = [
      cursorPage(null, ["a1", "a2"], "c2"),
      cursorPage("c2", ["a3", "a4"], "c3"),
      cursorPage("c3", ["a5"], "c2"),
      cursorPage("c2", ["a3", "a4"], "c3"),
      cursorPage("c3"),
    ];
    expect(decideOn(cycle, { policy: pager }).state).toBe("OPEN");
    expect(decideOn(cycle.slice(0, 3).concat(cursorPage("c2")), { policy: pager }).state).toBe("HALF_OPEN");
  });

  it("starts afresh after new work elsewhere, when the page came back changed, or for another listing", () => {
    const created = { tool: "create_order", args: { customer_id: "cust_001", sku: "SKU-7" }, result: { id: "ord_99", status: "created" } };
    expect(decideOn([page(1, records(1)), page(2, records(2)), created, page(1)], { policy: pager }).state).toBe("CLOSED");
    const live = [page(1, records(1)), page(2, records(2)), page(1, { orders: [{ id: "ord_99" }, { id: "ord_11" }], page: 1, next_page: 2 }), page(2)];
    // Page 1 came back with a new order on top: the listing has shifted, so page 2 is worth reading again.
    expect(severity(decideOn(live, { policy: pager }), "page_revisit")).toBe("none");
    expect(decideOn(live, { policy: pager }).state).toBe("CLOSED");
    const other = [page(1, records(1)), page(2, records(2)), page(1, records(7), "cust_002"), page(1, undefined, "cust_003")];
    expect(severity(decideOn(other, { policy: pager }), "page_revisit")).toBe("none");
  });

  it("retries a page whose fetch failed: that is not a revisit", () => {
    const failed: CallSpec = { ...page(2), error: "HTTP 503 Service Unavailable" };
    expect(severity(decideOn([page(1, records(1)), failed, page(2)], { policy: pager }), "page_revisit")).toBe("none");
  });

  it("is the pagination nature's own: an undeclared tool going back a page is judged by the other detectors", () => {
    const back = [page(1, records(1)), page(2, records(2)), page(1)];
    expect(severity(decideOn(back), "page_revisit")).toBe("none");
    expect(decideOn(back).state).toBe("CLOSED");
  });
});
