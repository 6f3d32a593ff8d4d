import { DiagnosticCode } from "../../codes.js";
import { joinPointer } from "../../diagnostics.js";
import { resolveAddressableRef } from "../../refs.js";
import { AutonomousProfile, isMapping } from "../../schema/index.js";
import type { PolicyContext } from "./context.js";

const TENANT_PREFIX = "deployment_tenants.";
const NODE_PREFIX = "nodes.";

function section(scenario: unknown, name: string): Record<string, unknown> {
  const value = isMapping(scenario) ? scenario[name] : undefined;
  return isMapping(value) ? value : {};
}

function stripped(ref: unknown, prefix: string): string {
  const text = typeof ref === "string" ? ref : "";
  return text.startsWith(prefix) ? text.slice(prefix.length) : text;
}

/**
 * Checks that each resource-budget owner lies within what the scenario declares and the policy acts on
 * (docs/guide/harness.md#autonomous-execution-v3): a participant owner is one of the
 * specification's participants; a tenant owner is a declared deployment tenant that owns a target of the
 * policy's actions (by a deployment cell or a `uses_shared_service` relationship); a shared-service owner
 * is a declared node service, exactly a target of the policy's actions, that a budget tenant may use.
 * RAES reports these as uncoded prose; the codes are raes-ts's (docs/raes-mapping.md).
 */
export function checkResourceBudgetOwners(ctx: PolicyContext): void {
  const { index, spec, policy, at, report } = ctx;
  if (policy.profile !== AutonomousProfile.v3) return;
  const scenario = index.scenario;
  const raw: unknown = scenario;
  const participants = new Set(spec.participant_refs.map((ref) => stripped(ref, "agents.")));
  const actionTargets = new Set<string>();
  for (const candidate of Object.values(policy.action_candidates)) {
    const contract = scenario.action_contracts[stripped(candidate.action_ref, "action_contracts.")];
    for (const effect of contract?.effects ?? [])
      for (const target of effect.target_refs) actionTargets.add(target);
  }
  const targetNodes = new Set(
    [...actionTargets]
      .filter((target) => target.startsWith(NODE_PREFIX))
      .map((target) => target.slice(NODE_PREFIX.length).split(".services.", 1)[0] ?? ""),
  );
  const targetTenants = new Set<string>();
  for (const cell of Object.values(section(raw, "deployment_cells"))) {
    if (!isMapping(cell)) continue;
    const nodes = Array.isArray(cell.node_refs) ? cell.node_refs : [];
    if (nodes.some((node) => targetNodes.has(stripped(node, NODE_PREFIX)))) {
      targetTenants.add(stripped(cell.tenant_ref, TENANT_PREFIX));
    }
  }
  const sharedPermissions = new Set<string>();
  for (const relationship of Object.values(section(raw, "relationships"))) {
    if (!isMapping(relationship) || relationship.type !== "uses_shared_service") continue;
    const tenant = stripped(relationship.source, TENANT_PREFIX);
    const target = typeof relationship.target === "string" ? relationship.target : "";
    sharedPermissions.add(JSON.stringify([tenant, target]));
    if (actionTargets.has(target)) targetTenants.add(tenant);
  }
  const tenants = section(raw, "deployment_tenants");
  const owners = policy.resource_budget.owners;
  const declaredTenants = Object.values(owners)
    .filter((owner) => owner.kind === "deployment_tenant")
    .map((owner) => stripped(owner.ref, TENANT_PREFIX));
  for (const [ownerId, owner] of Object.entries(owners)) {
    const path = joinPointer(at, "resource_budget", "owners", ownerId, "ref");
    const label = `resource-budget owner '${ownerId}'`;
    const ref = owner.ref;
    if (owner.kind === "participant" && !participants.has(stripped(ref, "agents."))) {
      report({
        code: DiagnosticCode.resourceBudgetParticipantOutOfScope,
        message: `${label} participant ref '${ref}' is outside the policy participant scope`,
        path,
      });
    } else if (owner.kind === "deployment_tenant") {
      const tenant = stripped(ref, TENANT_PREFIX);
      if (!Object.hasOwn(tenants, tenant)) {
        report({
          code: DiagnosticCode.resourceBudgetTenantUnbound,
          message: `${label} deployment tenant ref '${ref}' is undefined`,
          path,
        });
      } else if (!targetTenants.has(tenant)) {
        report({
          code: DiagnosticCode.resourceBudgetTenantUnauthorized,
          message: `${label} deployment tenant ref '${ref}' does not own an authorized action target`,
          path,
        });
      }
    } else if (owner.kind === "shared_service") {
      if (resolveAddressableRef(scenario, ref)?.kind !== "service") {
        report({
          code: DiagnosticCode.resourceBudgetServiceUnbound,
          message: `${label} shared service ref '${ref}' is undefined`,
          path,
        });
      } else if (!actionTargets.has(ref)) {
        report({
          code: DiagnosticCode.resourceBudgetServiceNotTarget,
          message: `${label} shared service ref '${ref}' is not an exact execution target`,
          path,
        });
      } else if (!declaredTenants.some((tenant) => sharedPermissions.has(JSON.stringify([tenant, ref])))) {
        report({
          code: DiagnosticCode.resourceBudgetServiceUnauthorized,
          message: `${label} shared service ref '${ref}' lacks an authorized tenant uses_shared_service edge`,
          path,
        });
      }
    }
  }
}
