import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { ORDERS } from "./fixtures/commerce.js";
import { pageOf } from "./paginate.js";

const schema = z.object({
  customer_id: z.string().trim().min(1).describe('Customer id, e.g. "cust_001".'),
  page: z.number().int().min(1).default(1).describe("1-based page number; use next_page from the previous answer."),
  page_size: z.number().int().min(1).max(50).default(10).describe("Orders per page."),
});

/** A customer's orders, oldest first, paged: the legitimate pager whose every page brings new records. */
export const listOrders = defineTool(
  {
    name: "list_orders",
    description:
      "List a customer's orders, oldest first, one page at a time. Pass next_page as page to continue; next_page is null on the last page.",
    schema,
    nature: "pagination",
    timeoutMs: 5_000,
    examples: [{ customer_id: "cust_001" }, { customer_id: "cust_001", page: 2, page_size: 10 }],
  },
  ({ customer_id, page, page_size }) => {
    const all = ORDERS.filter((o) => o.customer_id === customer_id);
    const cut = pageOf(all, (page - 1) * page_size, page_size);
    return {
      orders: cut.items.map((o) => ({ ...o })),
      page,
      page_size,
      total: all.length,
      next_page: cut.next === null ? null : page + 1,
    };
  },
);
