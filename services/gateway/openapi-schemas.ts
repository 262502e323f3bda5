/**
 * The JSON shapes of the contract (sections 1.8, 2, 4, 7-12) as OpenAPI 3.0 schemas, for the
 * document served at `/openapi.json`. Output-only fields are `readOnly`, input-only ones
 * `writeOnly`; int64 values are decimal strings (proto3 JSON, contract 1.2).
 */

export interface Schema {
	type?: "string" | "integer" | "number" | "boolean" | "array" | "object";
	format?: string;
	enum?: string[];
	items?: Schema;
	properties?: Record<string, Schema>;
	required?: string[];
	additionalProperties?: Schema | boolean;
	nullable?: boolean;
	readOnly?: boolean;
	writeOnly?: boolean;
	description?: string;
	example?: unknown;
	minimum?: number;
	maximum?: number;
	$ref?: string;
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str = (description?: string, extra: Schema = {}): Schema => ({ type: "string", ...(description ? { description } : {}), ...extra });
const out = (schema: Schema): Schema => ({ ...schema, readOnly: true });
const bool = (): Schema => ({ type: "boolean" });
const int32 = (description?: string): Schema => ({ type: "integer", format: "int32", ...(description ? { description } : {}) });
const int64 = (description?: string): Schema => str(description ?? "int64 as a decimal string", { format: "int64", example: "0" });
const time = (): Schema => str("RFC 3339 time in UTC, e.g. 2025-03-01T09:30:00.123Z", { format: "date-time" });
const bytes = (description: string): Schema => str(description, { format: "byte" });
const arr = (items: Schema): Schema => ({ type: "array", items });
const obj = (properties: Record<string, Schema>, required?: string[]): Schema => ({ type: "object", properties, ...(required ? { required } : {}) });
const enumOf = (...values: string[]): Schema => ({ type: "string", enum: values });
/** A free-form object stored and echoed as given. */
const anyObject = (description: string): Schema => ({ type: "object", additionalProperties: true, description });
const page = (field: string, item: string): Schema => obj({ [field]: arr(ref(item)), nextPageToken: str("empty on the last page") });

export const SCHEMAS = {
	Status: obj(
		{
			code: int32("gRPC status code (contract 1.8)"),
			message: str("for humans; not part of the contract"),
			details: { type: "array", items: anyObject("always empty"), description: "always []" }
		},
		["code", "message", "details"]
	),
	Memo: obj({
		name: out(str("memos/{memo}")),
		state: enumOf("STATE_UNSPECIFIED", "NORMAL", "ARCHIVED"),
		creator: out(str("users/{username}")),
		createTime: time(),
		updateTime: time(),
		content: str("Markdown"),
		visibility: enumOf("VISIBILITY_UNSPECIFIED", "PRIVATE", "PROTECTED", "PUBLIC", "SPACE"),
		tags: out(arr(str())),
		pinned: bool(),
		attachments: arr(ref("Attachment")),
		relations: out(arr(ref("MemoRelation"))),
		reactions: out(arr(ref("Reaction"))),
		property: out(
			obj({ hasLink: bool(), hasTaskList: bool(), hasCode: bool(), hasIncompleteTasks: bool(), title: str() })
		),
		parent: out(str("memos/{memo} of the commented memo; omitted when not a comment")),
		snippet: out(str()),
		location: obj({ placeholder: str(), latitude: { type: "number", format: "double", minimum: -90, maximum: 90 }, longitude: { type: "number", format: "double", minimum: -180, maximum: 180 } }),
		space: str("spaces/{space} or null", { nullable: true }),
		deleteTime: out(time())
	}),
	MemoRelation: obj({
		memo: obj({ name: str("memos/{memo}"), snippet: out(str()) }),
		relatedMemo: obj({ name: str("memos/{memo}"), snippet: out(str()) }),
		type: enumOf("TYPE_UNSPECIFIED", "REFERENCE", "COMMENT")
	}),
	Reaction: obj(
		{
			name: out(str("memos/{memo}/reactions/{reaction}")),
			creator: out(str("users/{username}")),
			reactionType: str("1-64 bytes, e.g. an emoji"),
			createTime: out(time())
		},
		["reactionType"]
	),
	MemoShare: obj({
		name: out(str("memos/{memo}/shares/{share}; the share segment is the bearer token")),
		createTime: out(time()),
		expireTime: time()
	}),
	LinkMetadata: obj({ url: str(), title: str(), description: str(), image: str() }),
	Attachment: obj(
		{
			name: out(str("attachments/{attachment}")),
			createTime: out(time()),
			filename: str("at most 255 bytes, no / or \\"),
			content: { ...bytes("file content (CreateAttachment only)"), writeOnly: true },
			externalLink: str("http(s) URL of bytes kept elsewhere, or empty"),
			type: str("MIME type"),
			size: out(int64("stored byte count")),
			memo: str("memos/{memo} when linked"),
			space: out(str("the linked memo's space, or null", { nullable: true })),
			motionMedia: anyObject("stored and echoed as given"),
			mediaMetadata: anyObject("stored and echoed as given; immutable after create")
		},
		["filename"]
	),
	SpaceMembership: obj({ role: enumOf("ROLE_UNSPECIFIED", "ADMIN", "MEMBER"), joinTime: time() }),
	Space: obj(
		{
			name: out(str("spaces/{space}")),
			displayName: str("1-100 characters"),
			description: str("at most 2000 characters"),
			creator: out(str("users/{username}")),
			createTime: out(time()),
			updateTime: out(time()),
			memberCount: out(int32()),
			membership: out(ref("SpaceMembership"))
		},
		["displayName"]
	),
	SpaceMember: obj({
		name: out(str("spaces/{space}/members/{username}")),
		user: str("users/{username}"),
		role: enumOf("ROLE_UNSPECIFIED", "ADMIN", "MEMBER"),
		joinTime: out(time())
	}),
	User: obj({
		name: out(str("users/{username}")),
		role: enumOf("ROLE_UNSPECIFIED", "ADMIN", "USER"),
		username: str(),
		email: str(),
		displayName: str(),
		avatarUrl: str(),
		description: str(),
		password: { ...str("8 to 72 bytes of UTF-8"), writeOnly: true },
		state: enumOf("STATE_UNSPECIFIED", "NORMAL", "ARCHIVED"),
		createTime: out(time()),
		updateTime: out(time())
	}),
	IdentityProvider: obj({
		name: out(str("identity-providers/{identity-provider}")),
		type: enumOf("TYPE_UNSPECIFIED", "OAUTH2"),
		title: str(),
		identifierFilter: str("regular expression the identifier must match"),
		config: obj({
			oauth2Config: obj({
				clientId: str(),
				clientSecret: str("write-only: always empty on output"),
				authUrl: str(),
				tokenUrl: str(),
				userInfoUrl: str(),
				scopes: arr(str()),
				fieldMapping: obj({ identifier: str(), displayName: str(), email: str(), avatarUrl: str() })
			})
		})
	}),
	InstanceProfile: obj({
		version: str(),
		demo: bool(),
		instanceUrl: str(),
		admin: ref("User"),
		commit: str(),
		needsSetup: bool(),
		accessMode: enumOf("INSTANCE_ACCESS_MODE_PRIVATE", "INSTANCE_ACCESS_MODE_PUBLIC"),
		apiCompat: { ...enumOf("strict", "upstream"), readOnly: true, description: "the API_COMPAT mode (contract 18)" }
	}),
	InstanceStats: obj({
		database: obj({ driver: enumOf("nedb", "mongodb"), sizeBytes: int64() }),
		localStorageBytes: int64(),
		generatedTime: time(),
		userCount: int32(),
		memoCount: int32(),
		attachmentCount: int32(),
		attachmentBytes: int64(),
		spaceCount: int32()
	}),
	InstanceSetting: {
		...obj({
			name: str("instance/settings/{KEY}"),
			generalSetting: anyObject("GENERAL"),
			storageSetting: anyObject("STORAGE"),
			memoRelatedSetting: anyObject("MEMO_RELATED"),
			tagsSetting: anyObject("TAGS"),
			notificationSetting: anyObject("NOTIFICATION"),
			aiSetting: anyObject("AI"),
			accessSetting: anyObject("ACCESS")
		}),
		description: "Exactly one value field, the one of the key (contract 4.12). Write-only secrets read as empty strings."
	},
	SignInRequest: obj({
		passwordCredentials: obj({ username: str(), password: { ...str(), writeOnly: true } }),
		ssoCredentials: obj({ idpName: str("identity-providers/{identity-provider}"), code: str(), redirectUri: str(), codeVerifier: str("PKCE, optional") })
	}),
	SignInResponse: obj({ user: ref("User"), accessToken: str(), accessTokenExpiresAt: time() }),
	RefreshTokenResponse: obj({ accessToken: str(), expiresAt: time() }),
	GetCurrentUserResponse: obj({ user: ref("User") }),
	ListMemosResponse: page("memos", "Memo"),
	ListMemoReactionsResponse: page("reactions", "Reaction"),
	ListMemoRelationsResponse: page("relations", "MemoRelation"),
	ListAttachmentsResponse: page("attachments", "Attachment"),
	ListSpacesResponse: page("spaces", "Space"),
	ListSpaceMembersResponse: page("members", "SpaceMember"),
	ListUsersResponse: page("users", "User"),
	ListMemoSharesResponse: obj({ memoShares: arr(ref("MemoShare")) }),
	ListIdentityProvidersResponse: obj({ identityProviders: arr(ref("IdentityProvider")) }),
	BatchGetLinkMetadataRequest: obj({ urls: arr(str()) }, ["urls"]),
	BatchGetLinkMetadataResponse: obj({ linkMetadata: arr(ref("LinkMetadata")) }),
	BatchGetInstanceSettingsRequest: obj({ names: arr(str("instance/settings/{KEY}")) }),
	BatchGetInstanceSettingsResponse: obj({ settings: arr(ref("InstanceSetting")) }),
	BatchDeleteAttachmentsRequest: obj({ names: arr(str("attachments/{attachment}")) }, ["names"]),
	SetMemoAttachmentsRequest: obj({ attachments: arr(ref("Attachment")) }),
	SetMemoRelationsRequest: obj({ relations: arr(ref("MemoRelation")) }),
	UpsertMemoReactionRequest: obj({ reaction: ref("Reaction") }, ["reaction"]),
	UploadAttachmentRequest: obj({
		spec: obj({ filename: str(), type: str(), size: int64(), memo: str("memos/{memo}"), attachmentId: str() }),
		uploadId: str(),
		offset: int64(),
		content: bytes("the chunk, 1 byte to 4 MiB decoded")
	}),
	UploadAttachmentResponse: obj({
		uploadId: str(),
		size: int64(),
		nextOffset: int64(),
		maxChunkSize: int64(),
		expireTime: time(),
		attachment: ref("Attachment")
	}),
	TestInstanceEmailSettingRequest: obj({ email: anyObject("NOTIFICATION e-mail setting; omitted: the stored one"), recipientEmail: str() }),
	TranscribeRequest: obj(
		{ audio: obj({ content: bytes("audio, at most 25 MiB"), filename: str(), contentType: str(), uri: str("not supported") }) },
		["audio"]
	),
	TranscribeResponse: obj({ text: str() }),
	BatchGetUsersRequest: obj({ usernames: arr(str()) }),
	BatchGetUsersResponse: obj({ users: arr(ref("User")) }),
	UserSetting: {
		...obj({
			name: str("users/{username}/settings/{KEY}"),
			generalSetting: obj({ locale: str(), memoVisibility: enumOf("PRIVATE", "PROTECTED", "PUBLIC"), theme: str() }),
			webhooksSetting: obj({ webhooks: arr(ref("UserWebhook")) }),
			tagsSetting: obj({
				tags: {
					type: "object",
					description: "tag pattern (an anchored regular expression) to its display rule",
					additionalProperties: obj({
						backgroundColor: obj({ red: { type: "number" }, green: { type: "number" }, blue: { type: "number" }, alpha: { type: "number" } }),
						blurContent: bool()
					})
				}
			})
		}),
		description: "Exactly one value field, the one of the key: GENERAL, WEBHOOKS (read-only here) or TAGS."
	},
	ListUserSettingsResponse: obj({ settings: arr(ref("UserSetting")), nextPageToken: str() }),
	UserStats: obj({
		name: out(str("users/{username}/stats")),
		memoTypeStats: obj({ linkCount: int32(), codeCount: int32(), todoCount: int32(), undoCount: int32() }),
		tagCount: { type: "object", additionalProperties: int32(), description: "memos per tag" },
		memoCreatedTimestamps: arr(time()),
		memoUpdatedTimestamps: arr(time()),
		pinnedMemos: arr(str("memos/{memo}")),
		totalMemoCount: int32()
	}),
	ListAllUserStatsResponse: obj({ stats: arr(ref("UserStats")) }),
	PersonalAccessToken: obj({
		name: out(str("users/{username}/personalAccessTokens/{id}")),
		description: str("at most 256 characters"),
		createdAt: out(time()),
		expiresAt: out(time()),
		lastUsedAt: out(time())
	}),
	ListPersonalAccessTokensResponse: page("personalAccessTokens", "PersonalAccessToken"),
	CreatePersonalAccessTokenRequest: obj({ description: str("at most 256 characters"), expiresInDays: int32("0 or absent: never expires; otherwise 1-3650") }),
	LinkedIdentity: obj({
		name: out(str("users/{username}/linkedIdentities/{identity-provider id}")),
		idpName: out(str("identity-providers/{id}")),
		externUid: out(str("the account's identifier at the provider"))
	}),
	ListLinkedIdentitiesResponse: obj({ linkedIdentities: arr(ref("LinkedIdentity")) }),
	CreateLinkedIdentityRequest: obj(
		{ idpName: str("identity-providers/{id}"), code: str("the OAuth2 authorization code"), redirectUri: str(), codeVerifier: str("PKCE verifier, if the flow used one") },
		["idpName", "code"]
	),
	Shortcut: obj({
		name: out(str("users/{username}/shortcuts/{id}")),
		title: str("1-256 characters"),
		filter: str("a ListMemos filter (contract 6); empty: every memo")
	}),
	ListShortcutsResponse: page("shortcuts", "Shortcut"),
	UserWebhook: obj({
		name: out(str("users/{username}/webhooks/{id}")),
		url: str("http(s) URL, at most 2048 bytes, resolving to public addresses only"),
		displayName: str("at most 256 characters"),
		createTime: out(time()),
		updateTime: out(time()),
		signingSecret: { ...str("input only: printable ASCII, `whsec_<base64>` or any other; generated when absent on create"), writeOnly: true },
		signingSecretSet: out(bool())
	}),
	ListUserWebhooksResponse: obj({ webhooks: arr(ref("UserWebhook")) }),
	GetUserWebhookSigningSecretResponse: obj({ signingSecret: str("`whsec_<base64>` unless the user gave another") }),
	UserNotification: obj({
		name: out(str("users/{username}/notifications/{id}")),
		sender: out(str("users/{username}")),
		senderUser: out(ref("User")),
		status: enumOf("STATUS_UNSPECIFIED", "UNREAD", "ARCHIVED"),
		createTime: out(time()),
		type: out(enumOf("TYPE_UNSPECIFIED", "MEMO_COMMENT", "MEMO_MENTION")),
		memoComment: out(ref("UserNotificationMemoPayload")),
		memoMention: out(ref("UserNotificationMemoPayload"))
	}),
	UserNotificationMemoPayload: obj({
		memo: str("memos/{memo}: the comment (MEMO_COMMENT) or the memo with the mention (MEMO_MENTION); the payload is omitted unless the recipient can read it"),
		relatedMemo: str("memos/{memo} of the commented memo; empty when there is none or the recipient cannot read it"),
		memoSnippet: str(),
		relatedMemoSnippet: str()
	}),
	ListUserNotificationsResponse: page("notifications", "UserNotification"),
	CreatePersonalAccessTokenResponse: obj({ personalAccessToken: ref("PersonalAccessToken"), token: str("memos_pat_ and 32 base62 characters; shown only here") })
} satisfies Record<string, Schema>;

export type SchemaName = keyof typeof SCHEMAS;
