import { ORDERS } from "../../tools/fixtures/commerce.js";

/**
 * The SQL of a runaway model that never repeats itself: turn n asks for
 * something new (one order by id, or the first k orders), and every answer
 * is new too, so no loop detector has anything to find; only the run's and
 * the session's call budgets can stop it.
 */
export function runawaySql(turn: number): string {
  const k = Math.floor(turn / 2);
  const order = ORDERS[k % ORDERS.length]!;
  return turn % 2 === 0 ? `SELECT * FROM orders WHERE id = '${order.id}'` : `SELECT * FROM orders LIMIT ${(k % ORDERS.length) + 1}`;
}
