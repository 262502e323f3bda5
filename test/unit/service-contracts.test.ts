import { ServiceBroker, type ServiceSchema } from "moleculer";
import { aiActions } from "../../services/ai/ai.contract.js";
import AiService from "../../services/ai/ai.service.js";
import { attachmentsActions } from "../../services/attachments/attachments.contract.js";
import AttachmentsService from "../../services/attachments/attachments.service.js";
import { authActions } from "../../services/auth/auth.contract.js";
import AuthService from "../../services/auth/auth.service.js";
import { instanceActions } from "../../services/instance/instance.contract.js";
import InstanceService from "../../services/instance/instance.service.js";
import { memosActions } from "../../services/memos/memos.contract.js";
import MemosService from "../../services/memos/memos.service.js";
import { spacesActions } from "../../services/spaces/spaces.contract.js";
import SpacesService from "../../services/spaces/spaces.service.js";
import type { AnyActionRef } from "../../shared/contract.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each service has its own settings, methods and vars
type AnyServiceSchema = ServiceSchema<any, any, any, any>;

/** Every service and the actions its contract publishes. */
const SERVICES: [string, AnyServiceSchema, Record<string, AnyActionRef>][] = [
	["auth", AuthService, authActions],
	["memos", MemosService, memosActions],
	["attachments", AttachmentsService, attachmentsActions],
	["spaces", SpacesService, spacesActions],
	["instance", InstanceService, instanceActions],
	["ai", AiService, aiActions]
];

describe("service contracts", () => {
	const broker = new ServiceBroker({ logger: false });

	test.each(SERVICES)("%s registers exactly the actions of its contract", (name, schema, actions) => {
		const service = broker.createService(schema);
		expect(service.name).toBe(name);
		for (const [key, ref] of Object.entries(actions)) {
			expect(ref.name).toBe(`${name}.${key}`);
			expect(ref.service).toBe(name);
			expect(ref.action).toBe(key);
		}
		const published = Object.values(actions).map(ref => ref.name);
		const registered = Object.keys(service.schema.actions ?? {}).map(action => `${name}.${action}`);
		expect(registered.sort()).toEqual(published.sort());
	});
});
