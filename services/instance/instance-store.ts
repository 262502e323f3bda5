import type { Collection, Doc, DocumentStore } from "../../shared/store/document-store.js";
import type { InstanceSettingKey } from "../../shared/names.js";
import type { SettingValue } from "./setting-json.js";

const SETTINGS = "instance_settings";

/**
 * The value is kept as JSON text: TAGS keys are regular expressions, which may hold `.` and
 * `$`, and neither store accepts those in field names.
 */
interface SettingDoc extends Doc {
	json: string;
}

/** The instance service's collection: the stored settings, one document per key (absent: the defaults). */
export interface InstanceStore {
	stored(key: InstanceSettingKey): Promise<SettingValue | undefined>;
	/** The stored values of `keys`; keys never stored are absent. */
	storedMany(keys: Iterable<InstanceSettingKey>): Promise<Map<InstanceSettingKey, SettingValue>>;
	save(key: InstanceSettingKey, value: SettingValue): Promise<void>;
}

export function instanceStore(documents: DocumentStore): InstanceStore {
	const settings: Collection<SettingDoc> = documents.collection<SettingDoc>(SETTINGS);
	return {
		async stored(key) {
			const doc = await settings.findOne({ _id: key });
			return doc ? (JSON.parse(doc.json) as SettingValue) : undefined;
		},
		async storedMany(keys) {
			const docs = await settings.find({ _id: { $in: [...new Set(keys)] } });
			return new Map(docs.map(doc => [doc._id as InstanceSettingKey, JSON.parse(doc.json) as SettingValue]));
		},
		async save(key, value) {
			await settings.update({ _id: key }, { $set: { json: JSON.stringify(value) } }, { upsert: true });
		}
	};
}
