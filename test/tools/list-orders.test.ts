import { describe, expect, it } from "vitest";
import { summarizeOutcome } from "../../breaker/outcome.js";
import { listOrders } from "../../tools/list-orders.js";
import { followPages, run, SCHEMA_REJECTION } from "./invoke.js";

interface OrdersPage {
  orders: { id: string; placed_on: string }[];
  total: number;
  next_page: number | null;
}

/** Every page of a customer's orders, following next_page from 1. */
function allPages(customer_id: string, page_size?: number): Promise<OrdersPage[]> {
  return followPages(
    1,
    (page) => run<OrdersPage>(listOrders, { customer_id, page, ...(page_size ? { page_size } : {}) }),
    (page) => page.next_page,
  );
}

describe("list_orders", () => {
  it("pages through 35 orders with new records on every page and stops", async () => {
    const pages = await allPages("cust_001");
    expect(pages.map((p) => p.orders.length)).toEqual([10, 10, 10, 5]);
    expect(pages.map((p) => p.next_page)).toEqual([2, 3, 4, null]);
    const ids = pages.flatMap((p) => p.orders.map((o) => o.id));
    expect(new Set(ids).size).toBe(35);
    expect(pages.every((p) => p.total === 35)).toBe(true);
    const fingerprints = pages.map((p) => summarizeOutcome({ output: p }).fingerprint);
    expect(new Set(fingerprints).size).toBe(pages.length);
  });

  it("lists orders oldest first", async () => {
    const [first] = await allPages("cust_001", 50);
    const dates = first!.orders.map((o) => o.placed_on);
    expect(dates).toEqual([...dates].sort());
    expect(first!.next_page).toBeNull();
  });

  it("returns an empty last page for a customer without orders or an unknown one", async () => {
    for (const customer_id of ["cust_003", "cust_404"]) {
      const out: OrdersPage = await run(listOrders, { customer_id });
      expect(out).toMatchObject({ orders: [], total: 0, next_page: null });
    }
  });

  it("returns an empty page past the end", async () => {
    expect(await run(listOrders, { customer_id: "cust_002", page: 3 })).toMatchObject({ orders: [], total: 4, next_page: null });
  });

  it("answers the same input identically", async () => {
    const args = { customer_id: "cust_001", page: 2, page_size: 7 };
    expect(await run(listOrders, args)).toEqual(await run(listOrders, args));
  });

  it.each([{}, { customer_id: "cust_001", page: 0 }, { customer_id: "cust_001", page_size: 51 }, { customer_id: "cust_001", page: 1.5 }])(
    "rejects %j",
    async (args) => {
      await expect(run(listOrders, args)).rejects.toThrow(SCHEMA_REJECTION);
    },
  );
});
