// A sandbox child for the start-cost benchmark that loads what a real child session loads at start
// (zod for tool schemas, yaml for agent files) and answers one echo request.

import { z } from "zod";
import { parse } from "yaml";
import { runningInWorker, serveSandbox } from "../lib/child/serve.ts";
import { stdioPort } from "./sandbox_process.ts";

const Request = z.object({ value: z.unknown() });
parse("warm: true");

serveSandbox((request) => Request.parse(request).value, runningInWorker() ? undefined : stdioPort());
