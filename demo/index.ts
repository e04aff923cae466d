/**
 * The demo unit: the scripted model and its scenarios (`scripted:<scenario>`),
 * the scenario runner and `npm run demo`. Nothing on the graph's production
 * path imports this folder; the model loader imports this module only when a
 * run names a `scripted:` model. Delete the folder to drop the demo (README, "Fork it").
 */
export { ScriptedChatModel, type ScriptedChatModelInput } from "./scripted-chat-model.js";
export { SCENARIOS, turnAt, type Scenario, type ScriptedTurn } from "./scenarios.js";
