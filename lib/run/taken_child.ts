// Owns running a remote child on the worker that took its job (lib/worker/worker.ts): the child runs
// in this process's runner (a Worker under its own permission set), its grandchildren are launched
// here (with the memory and skills its job brought), and nobody can be asked. The worker holds the
// run's lease in the shared store, so no lease is taken here.

import type { ChildOutcome, ChildSpec } from "../executor/child.ts";
import type { SubagentEnv } from "./subagent_env.ts";
import { runChildHoldingLease } from "./child_run.ts";
import { childHost, nestedParent } from "./child_host.ts";
import { SubagentRuntime } from "./subagents.ts";

/**
 * Runs a remote child on the worker that took its job (lib/worker/worker.ts): in this process's
 * runner (a Worker under the child's own permission set), with grandchildren launched here and no
 * person to ask. The worker holds the run's lease in the shared store.
 */
export function runTakenChild(
  env: SubagentEnv,
  o: {
    spec: ChildSpec;
    signal: AbortSignal;
    onActivity: () => void;
    /** The job's project key (its record's): the key its own children's records carry. */
    projectKey?: string | undefined;
  },
): Promise<ChildOutcome> {
  const { spec, signal } = o;
  // Its own children get the run's memory and skills from its job, as a local run's get the run's.
  const nestedEnv = spec.context === undefined ? env : { ...env, childContext: spec.context };
  return runChildHoldingLease(env, spec, {
    parentSessionId: spec.parentSessionId,
    signal,
    onActivity: o.onActivity,
    host: (emit, slot) =>
      childHost({
        env,
        spec,
        emit,
        signal,
        nested: new SubagentRuntime(
          nestedEnv,
          nestedParent(env, { projectPath: spec.parentProjectPath, projectKey: o.projectKey }, spec),
          { canAsk: false, slot },
        ),
      }),
  });
}
