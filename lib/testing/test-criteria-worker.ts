// Entry of dist/test-criteria-worker.mjs: the tests' deterministic criteria, served in a worker thread.
import { serveLogic } from "../criteria/logic-worker";
import { testLogicModules } from "./test-logic";

serveLogic(testLogicModules);
