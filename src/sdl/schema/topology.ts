import type { DecodeContext, Shape } from "./shape.js";
import { bool, either, integer, list, nullable, opaque, record, text } from "./shape.js";
import { optional, required, struct, withDefault } from "./struct.js";

const strings = () => list(text());

const serviceName: Shape<string> = {
  expected: "a string",
  decode(raw, pointer, ctx) {
    if (raw === "") return raw;
    return text({ identifier: true }).decode(raw, pointer, ctx);
  },
};

const servicePort = struct({
  port: required(either(integer({ min: 1, max: 65535 }), text({ nonEmpty: true }))),
  protocol: withDefault(text(), "tcp"),
  name: withDefault(serviceName, ""),
  description: withDefault(text(), ""),
});

/** A node and its services (`nodes.<name>`); sections raes-ts does not use are kept as authored. */
export const nodeShape = struct(
  {
    type: required(text({ oneOf: ["vm", "switch"] })),
    description: withDefault(text(), ""),
    source: optional(opaque()),
    resources: optional(opaque()),
    os: optional(nullable(text())),
    os_version: withDefault(text(), ""),
    features: optional(opaque()),
    conditions: optional(opaque()),
    injects: optional(opaque()),
    vulnerabilities: withDefault(strings(), []),
    roles: optional(opaque()),
    services: withDefault(list(servicePort), []),
    asset_value: optional(opaque()),
    endpoint_persona: optional(opaque()),
    runtime: optional(opaque()),
  },
  [
    (node, fail) => {
      const seen = new Set<string>();
      node.services.forEach((service, index) => {
        if (service.name === "") return;
        if (seen.has(service.name))
          fail(`service name '${service.name}' is repeated`, "services", index, "name");
        seen.add(service.name);
      });
    },
  ],
);

/** An exercise role. */
export const EXERCISE_ROLES = ["white", "green", "red", "blue"] as const;

/** An entity (team, person); entities nest, and nested ones are named `parent.child`. */
export interface Entity {
  readonly name: string;
  readonly description: string;
  readonly role?: string | null;
  readonly mission: string;
  readonly categories: readonly string[];
  readonly vulnerabilities: readonly string[];
  readonly facts?: unknown;
  readonly events: readonly string[];
  readonly entities: Readonly<Record<string, Entity>>;
}

const entityFields = () =>
  struct({
    name: withDefault(text(), ""),
    description: withDefault(text(), ""),
    role: optional(nullable(text({ oneOf: EXERCISE_ROLES }))),
    mission: withDefault(text(), ""),
    categories: withDefault(strings(), []),
    vulnerabilities: withDefault(strings(), []),
    facts: optional(opaque()),
    events: withDefault(strings(), []),
    entities: withDefault(record(entityShape), {}),
  });

let entityStruct: Shape<Entity> | undefined;

/** An entity, decoded recursively. */
export const entityShape: Shape<Entity> = {
  expected: "a mapping",
  decode(raw: unknown, pointer: string, ctx: DecodeContext) {
    entityStruct ??= entityFields();
    return entityStruct.decode(raw, pointer, ctx);
  },
};

const contentItem = struct({
  name: required(text({ identifier: true })),
  display_name: withDefault(text(), ""),
  tags: withDefault(strings(), []),
  description: withDefault(text(), ""),
});

/** A content entry (`content.<name>`): files, datasets and directories, including tools. */
export const contentShape = struct({
  type: required(text({ oneOf: ["file", "dataset", "directory"] })),
  description: withDefault(text(), ""),
  target: withDefault(text(), ""),
  path: withDefault(text(), ""),
  destination: withDefault(text(), ""),
  text: optional(nullable(text())),
  source: optional(opaque()),
  format: withDefault(text(), ""),
  items: withDefault(list(contentItem), []),
  sensitive: withDefault(either(bool(), text()), false),
  tags: withDefault(strings(), []),
  service_materialization: optional(opaque()),
});
