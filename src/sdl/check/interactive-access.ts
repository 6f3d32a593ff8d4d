import { DiagnosticCode } from "../codes.js";
import type { Finding } from "../diagnostics.js";
import { joinPointer } from "../diagnostics.js";
import type { ScenarioIndex } from "../refs.js";
import { isMapping } from "../schema/index.js";

type Report = (finding: Finding) => void;

/** The declaration a bare or `section.`-qualified ref names, as RAES resolves section refs. */
function sectionRef(
  ref: string,
  section: string,
  declared: Readonly<Record<string, unknown>>,
): string | undefined {
  if (Object.hasOwn(declared, ref)) return ref;
  const prefix = `${section}.`;
  const name = ref.startsWith(prefix) ? ref.slice(prefix.length) : "";
  return name !== "" && Object.hasOwn(declared, name) ? name : undefined;
}

/**
 * RAES's interactive-access rules (DSL-117), per agent: the target is a declared VM node; an account is
 * declared, on the target's node and among the agent's starting accounts; no two entries name the same
 * VM and channel.
 */
export function checkInteractiveAccess(index: ScenarioIndex, report: Report): void {
  const { nodes } = index.scenario;
  const accounts = isMapping(index.scenario.accounts) ? index.scenario.accounts : {};
  for (const [name, agent] of Object.entries(index.scenario.agents)) {
    const starting = new Set(
      agent.starting_accounts
        .map((ref) => sectionRef(ref, "accounts", accounts))
        .filter((account) => account !== undefined),
    );
    const endpoints = new Map<string, string>();
    for (const [id, access] of Object.entries(agent.interactive_access)) {
      const at = joinPointer("/agents", name, "interactive_access", id);
      const label = `agent '${name}' interactive_access '${id}'`;
      const target = sectionRef(access.target_ref, "nodes", nodes);
      const isVm = target !== undefined && nodes[target]?.type === "vm";
      if (target === undefined) {
        report({
          code: DiagnosticCode.interactiveAccessTargetUnbound,
          message: `${label} target_ref '${access.target_ref}' names no declared VM node`,
          path: joinPointer(at, "target_ref"),
        });
      } else if (!isVm) {
        report({
          code: DiagnosticCode.interactiveAccessTargetNotVm,
          message: `${label} target_ref '${access.target_ref}' must name a VM node`,
          path: joinPointer(at, "target_ref"),
        });
      }
      const accountRef = access.account_ref ?? undefined;
      if (accountRef !== undefined) {
        const account = sectionRef(accountRef, "accounts", accounts);
        if (account === undefined) {
          report({
            code: DiagnosticCode.interactiveAccessAccountUnbound,
            message: `${label} account_ref '${accountRef}' names no declared account`,
            path: joinPointer(at, "account_ref"),
          });
        } else {
          const declared = accounts[account];
          const node =
            isMapping(declared) && typeof declared.node === "string"
              ? sectionRef(declared.node, "nodes", nodes)
              : undefined;
          if (target !== undefined && node !== undefined && node !== target) {
            report({
              code: DiagnosticCode.interactiveAccessAccountNodeMismatch,
              message: `${label} account_ref '${accountRef}' belongs to node '${node}', not target '${target}'`,
              path: joinPointer(at, "account_ref"),
            });
          }
          if (!starting.has(account)) {
            report({
              code: DiagnosticCode.interactiveAccessAccountNotStarting,
              message: `${label} account_ref '${accountRef}' is not in starting_accounts`,
              path: joinPointer(at, "account_ref"),
            });
          }
        }
      }
      if (target === undefined || !isVm) continue;
      const endpoint = `${target}\u0000${access.channel}`;
      const first = endpoints.get(endpoint);
      if (first === undefined) {
        endpoints.set(endpoint, id);
      } else {
        report({
          code: DiagnosticCode.interactiveAccessDuplicateEndpoint,
          message: `${label} duplicates target/channel '${target}'/'${access.channel}' of '${first}'`,
          path: joinPointer(at, "channel"),
        });
      }
    }
  }
}
