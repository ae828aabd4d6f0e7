// Entry of dist/criteria-worker.mjs: the project's deterministic criteria, served in a worker thread.
import { logicModules } from "@/criteria/logic-registry";
import { serveLogic } from "./logic-worker";

serveLogic(logicModules);
