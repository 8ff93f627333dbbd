// A sandbox child for the start-cost benchmark that loads what a real child session loads at start
// (zod for tool schemas, yaml for agent files) and answers one echo request.

import { z } from "zod";
import { parse } from "yaml";
import { serveSandbox } from "../lib/permissions/sandbox_child.ts";

const Request = z.object({ value: z.unknown() });
parse("warm: true");

serveSandbox((request) => Request.parse(request).value);
