import type { SchemaName } from "./openapi-schemas.js";

/**
 * What the route table does not say about an operation and its OpenAPI entry needs: its
 * group, query parameters, and the contract's body and response shapes. Keyed by the
 * operation names of the route table; `test/api/openapi.test.ts` fails when a route has no
 * entry here, so the document cannot fall behind the routes.
 */

export type QueryParam =
	| "pageSize"
	| "pageToken"
	| "filter"
	| "orderBy"
	| "state"
	| "showDeleted"
	| "updateMask"
	| "updateMaskOptional"
	| "force"
	| "memoId"
	| "commentId"
	| "attachmentId"
	| "spaceId"
	| "identityProviderId"
	| "userId"
	| "url"
	| "validateOnly";

export interface OperationDoc {
	tag: "AuthService" | "UserService" | "ShortcutService" | "MemoService" | "AttachmentService" | "SpaceService" | "IdentityProviderService" | "InstanceService" | "AIService";
	query?: QueryParam[];
	/** The JSON body's schema; the route table says whether the operation takes a body. */
	request?: SchemaName;
	/** The answer's schema; absent for operations answering Empty (a zero-length body). */
	response?: SchemaName;
	description?: string;
	/** Answers without a body, by HTTP status (tus): replace the JSON `200`. */
	answers?: Record<string, string>;
}

const PAGE: QueryParam[] = ["pageSize", "pageToken"];

export const OPERATION_DOCS: Record<string, OperationDoc> = {
	// Contract 2.3
	SignIn: { tag: "AuthService", request: "SignInRequest", response: "SignInResponse", description: "Sets the `memos_refresh` cookie." },
	RefreshToken: { tag: "AuthService", response: "RefreshTokenResponse", description: "Reads only the `memos_refresh` cookie; rotates it." },
	SignOut: { tag: "AuthService", description: "Revokes the refresh cookie's family and clears the cookie." },
	GetCurrentUser: { tag: "AuthService", response: "GetCurrentUserResponse" },
	// Contract 2.4
	CreateUser: { tag: "UserService", query: ["userId"], request: "User", response: "User" },
	ListUsers: { tag: "UserService", query: [...PAGE, "filter"], response: "ListUsersResponse" },
	GetUser: { tag: "UserService", response: "User" },
	UpdateUser: { tag: "UserService", query: ["updateMask"], request: "User", response: "User" },
	DeleteUser: { tag: "UserService" },
	// Contract 16
	BatchGetUsers: { tag: "UserService", request: "BatchGetUsersRequest", response: "BatchGetUsersResponse" },
	ListUserSettings: { tag: "UserService", response: "ListUserSettingsResponse" },
	GetUserSetting: { tag: "UserService", response: "UserSetting" },
	UpdateUserSetting: { tag: "UserService", query: ["updateMask"], request: "UserSetting", response: "UserSetting" },
	GetUserStats: { tag: "UserService", response: "UserStats" },
	ListAllUserStats: { tag: "UserService", response: "ListAllUserStatsResponse" },
	ListPersonalAccessTokens: { tag: "UserService", query: PAGE, response: "ListPersonalAccessTokensResponse" },
	CreatePersonalAccessToken: {
		tag: "UserService",
		request: "CreatePersonalAccessTokenRequest",
		response: "CreatePersonalAccessTokenResponse",
		description: "Use the token as `Authorization: Bearer memos_pat_…`; it is shown once and stored only as a hash."
	},
	DeletePersonalAccessToken: { tag: "UserService" },
	ListLinkedIdentities: { tag: "UserService", response: "ListLinkedIdentitiesResponse" },
	CreateLinkedIdentity: { tag: "UserService", request: "CreateLinkedIdentityRequest", response: "LinkedIdentity" },
	GetLinkedIdentity: { tag: "UserService", response: "LinkedIdentity" },
	DeleteLinkedIdentity: { tag: "UserService" },
	// Contract 17
	ListUserWebhooks: { tag: "UserService", response: "ListUserWebhooksResponse" },
	CreateUserWebhook: { tag: "UserService", request: "UserWebhook", response: "UserWebhook" },
	UpdateUserWebhook: {
		tag: "UserService",
		query: ["updateMaskOptional"],
		request: "UserWebhook",
		response: "UserWebhook",
		description: "Mask paths: url, display_name, signing_secret. Without a mask, as upstream: displayName is replaced, url and signingSecret only when given non-empty."
	},
	DeleteUserWebhook: { tag: "UserService" },
	GetUserWebhookSigningSecret: { tag: "UserService", response: "GetUserWebhookSigningSecretResponse" },
	ListShortcuts: { tag: "ShortcutService", query: PAGE, response: "ListShortcutsResponse" },
	CreateShortcut: { tag: "ShortcutService", query: ["validateOnly"], request: "Shortcut", response: "Shortcut" },
	GetShortcut: { tag: "ShortcutService", response: "Shortcut" },
	UpdateShortcut: { tag: "ShortcutService", query: ["updateMask"], request: "Shortcut", response: "Shortcut" },
	DeleteShortcut: { tag: "ShortcutService" },
	// Contract 17
	ListUserNotifications: { tag: "UserService", query: [...PAGE, "filter"], response: "ListUserNotificationsResponse", description: "`filter` is accepted and ignored, as upstream v0.30.0 ignores it." },
	UpdateUserNotification: { tag: "UserService", query: ["updateMask"], request: "UserNotification", response: "UserNotification" },
	DeleteUserNotification: { tag: "UserService" },
	// Contract 7
	ListMemos: { tag: "MemoService", query: [...PAGE, "state", "orderBy", "filter", "showDeleted"], response: "ListMemosResponse" },
	CreateMemo: { tag: "MemoService", query: ["memoId"], request: "Memo", response: "Memo" },
	GetMemo: { tag: "MemoService", response: "Memo" },
	UpdateMemo: { tag: "MemoService", query: ["updateMask"], request: "Memo", response: "Memo" },
	DeleteMemo: { tag: "MemoService", query: ["force"] },
	GetLinkMetadata: { tag: "MemoService", query: ["url"], response: "LinkMetadata" },
	BatchGetLinkMetadata: { tag: "MemoService", request: "BatchGetLinkMetadataRequest", response: "BatchGetLinkMetadataResponse" },
	ListMemoAttachments: { tag: "MemoService", query: PAGE, response: "ListAttachmentsResponse" },
	SetMemoAttachments: { tag: "MemoService", request: "SetMemoAttachmentsRequest" },
	ListMemoComments: { tag: "MemoService", query: [...PAGE, "orderBy"], response: "ListMemosResponse" },
	CreateMemoComment: { tag: "MemoService", query: ["commentId"], request: "Memo", response: "Memo" },
	ListMemoReactions: { tag: "MemoService", query: PAGE, response: "ListMemoReactionsResponse" },
	UpsertMemoReaction: { tag: "MemoService", request: "UpsertMemoReactionRequest", response: "Reaction" },
	DeleteMemoReaction: { tag: "MemoService" },
	// Contract 17
	SubscribeMemoEvents: {
		tag: "MemoService",
		description:
			"Server-sent events, as upstream memos sends them: `: connected` on open, `: heartbeat` every SSE_HEARTBEAT_MS (30 s), and per change a `data:` line of JSON `{type, name, parent?}` (type memo.created, memo.updated (also after SetMemoRelations and SetMemoAttachments), memo.deleted (never with parent), memo.comment.created (name: the commented memo), reaction.upserted or reaction.deleted; parent: the commented memo when name is a comment), only for memos the caller can read when it is sent. At most SSE_MAX_STREAMS streams per server (429 RESOURCE_EXHAUSTED beyond)."
	},
	ListMemoRelations: { tag: "MemoService", query: PAGE, response: "ListMemoRelationsResponse" },
	SetMemoRelations: { tag: "MemoService", request: "SetMemoRelationsRequest" },
	ListMemoShares: { tag: "MemoService", response: "ListMemoSharesResponse" },
	CreateMemoShare: { tag: "MemoService", request: "MemoShare", response: "MemoShare" },
	DeleteMemoShare: { tag: "MemoService" },
	GetSharedMemo: { tag: "MemoService", response: "Memo", description: "The memo of a live share link; the share token is the credential." },
	// Contract 8
	ListAttachments: { tag: "AttachmentService", query: [...PAGE, "filter", "orderBy"], response: "ListAttachmentsResponse" },
	CreateAttachment: { tag: "AttachmentService", query: ["attachmentId"], request: "Attachment", response: "Attachment" },
	GetAttachment: { tag: "AttachmentService", response: "Attachment" },
	UpdateAttachment: { tag: "AttachmentService", query: ["updateMask"], request: "Attachment", response: "Attachment" },
	DeleteAttachment: { tag: "AttachmentService" },
	BatchDeleteAttachments: { tag: "AttachmentService", request: "BatchDeleteAttachmentsRequest" },
	UploadAttachment: { tag: "AttachmentService", request: "UploadAttachmentRequest", response: "UploadAttachmentResponse", description: "Chunked upload (contract 8.4): open with `spec`, continue with `uploadId`, `offset` and `content`." },
	TusCreateUpload: {
		tag: "AttachmentService",
		description:
			"tus 1.0 creation: `Tus-Resumable: 1.0.0`, `Upload-Length` (1 … upload limit) and `Upload-Metadata` (`filename` or `name`, `type` or `filetype`, `memo`, `attachmentId`, values base64). An upload is an upload session of contract 8.4 (owner only, 30 minutes after the last request, at most 10 open per user). A body with `Content-Type: application/offset+octet-stream` carries the first bytes (creation-with-upload).",
		answers: { "201": "Location: the upload's URL; Upload-Offset, Upload-Expires." }
	},
	TusUploadOffset: { tag: "AttachmentService", answers: { "200": "Upload-Offset, Upload-Length, Upload-Expires, Cache-Control: no-store; Attachment-Name once the upload is complete." } },
	TusAppendUpload: {
		tag: "AttachmentService",
		description:
			"`Content-Type: application/offset+octet-stream`, `Upload-Offset` equal to the upload's offset (else 409, ABORTED). A request cut short keeps the bytes that arrived. The last byte creates the attachment under the rules of CreateAttachment.",
		answers: { "204": "Upload-Offset, Upload-Expires; Attachment-Name (`attachments/{id}`) when this request completed the upload." }
	},
	TusTerminateUpload: { tag: "AttachmentService", answers: { "204": "The upload and its bytes are gone (a finished upload's attachment stays)." } },
	// Contract 9
	ListSpaces: { tag: "SpaceService", query: PAGE, response: "ListSpacesResponse" },
	CreateSpace: { tag: "SpaceService", query: ["spaceId"], request: "Space", response: "Space" },
	GetSpace: { tag: "SpaceService", response: "Space" },
	UpdateSpace: { tag: "SpaceService", query: ["updateMask"], request: "Space", response: "Space" },
	DeleteSpace: { tag: "SpaceService", query: ["force"] },
	ListSpaceMembers: { tag: "SpaceService", query: PAGE, response: "ListSpaceMembersResponse" },
	AddSpaceMember: { tag: "SpaceService", request: "SpaceMember", response: "SpaceMember" },
	UpdateSpaceMember: { tag: "SpaceService", query: ["updateMask"], request: "SpaceMember", response: "SpaceMember" },
	RemoveSpaceMember: { tag: "SpaceService" },
	// Contract 10
	ListIdentityProviders: { tag: "IdentityProviderService", response: "ListIdentityProvidersResponse" },
	CreateIdentityProvider: { tag: "IdentityProviderService", query: ["identityProviderId"], request: "IdentityProvider", response: "IdentityProvider" },
	GetIdentityProvider: { tag: "IdentityProviderService", response: "IdentityProvider" },
	UpdateIdentityProvider: { tag: "IdentityProviderService", query: ["updateMask"], request: "IdentityProvider", response: "IdentityProvider" },
	DeleteIdentityProvider: { tag: "IdentityProviderService" },
	// Contract 11
	GetInstanceProfile: { tag: "InstanceService", response: "InstanceProfile" },
	GetInstanceStats: { tag: "InstanceService", response: "InstanceStats" },
	BatchGetInstanceSettings: { tag: "InstanceService", request: "BatchGetInstanceSettingsRequest", response: "BatchGetInstanceSettingsResponse" },
	TestInstanceEmailSetting: { tag: "InstanceService", request: "TestInstanceEmailSettingRequest" },
	GetInstanceSetting: { tag: "InstanceService", response: "InstanceSetting", description: "Keys: GENERAL, STORAGE, MEMO_RELATED, TAGS, NOTIFICATION, AI, ACCESS (read rights per key, contract 11.2)." },
	UpdateInstanceSetting: { tag: "InstanceService", query: ["updateMaskOptional"], request: "InstanceSetting", response: "InstanceSetting" },
	// Contract 12
	Transcribe: { tag: "AIService", request: "TranscribeRequest", response: "TranscribeResponse" }
};
