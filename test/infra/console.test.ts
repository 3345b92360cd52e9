/**
 * `withConsole`: a private, encrypted, SSL-only bucket read through origin access control, the
 * built console uploaded into it, and one distribution serving the console and, under the API's
 * paths, the HTTP API uncached with every viewer header but Host. Without the switch: none of it.
 */
import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { API_PATH_PATTERNS, CONTENT_SECURITY_POLICY } from "../../infra/constructs/console.ts";
import { resources, type Synthesized, synth, unacknowledged } from "./synth.ts";

// Managed policy IDs (AWS documentation: CloudFront managed cache and origin request policies).
const CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad";
const CACHING_OPTIMIZED = "658327ea-f89d-4fab-a63d-7e88639e58f6";
const ALL_VIEWER_EXCEPT_HOST_HEADER = "b689b0a8-53d0-40ab-baf2-68738e2966ac";

const JWT = { authorizer: "jwt", jwtIssuer: "https://issuer.example.com/", jwtAudience: "runtime-logs" };
const CONSOLE_TYPES = [
  "AWS::CloudFront::Distribution",
  "AWS::CloudFront::OriginAccessControl",
  "AWS::CloudFront::ResponseHeadersPolicy",
  "AWS::S3::Bucket",
  "AWS::S3::BucketPolicy",
  "Custom::CDKBucketDeployment",
];

interface Behavior {
  PathPattern?: string;
  TargetOriginId: string;
  CachePolicyId: string;
  OriginRequestPolicyId?: string;
  ResponseHeadersPolicyId?: unknown;
  ViewerProtocolPolicy: string;
  AllowedMethods: string[];
}

describe("withConsole=true", () => {
  let s: Synthesized;
  let config: {
    Origins: {
      Id: string;
      DomainName: unknown;
      OriginAccessControlId?: unknown;
      CustomOriginConfig?: unknown;
    }[];
    DefaultCacheBehavior: Behavior;
    CacheBehaviors: Behavior[];
    DefaultRootObject: string;
    Logging?: { Bucket: unknown; Prefix: string };
  };
  beforeAll(() => {
    s = synth({ ...JWT, withConsole: true });
    const [[, distribution]] = resources(s.template, "AWS::CloudFront::Distribution") as [
      [string, { Properties: { DistributionConfig: typeof config } }],
    ];
    config = distribution.Properties.DistributionConfig;
  });

  it("keeps the site bucket private, encrypted and SSL-only, with access logs", () => {
    const site = s.stack.getLogicalId(s.stack.console!.bucket.node.defaultChild as never);
    const logs = s.stack.getLogicalId(s.stack.console!.logBucket.node.defaultChild as never);
    for (const id of [site, logs]) {
      expect(s.template.toJSON().Resources[id].Properties).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
        },
      });
    }
    expect(s.template.toJSON().Resources[site].Properties.LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: logs },
      LogFilePrefix: "s3/",
    });
    // enforceSSL: a Deny on aws:SecureTransport=false; OAC: CloudFront may read, for this distribution only.
    s.template.hasResourceProperties("AWS::S3::BucketPolicy", {
      Bucket: { Ref: site },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
          Match.objectLike({
            Effect: "Allow",
            Action: "s3:GetObject",
            Principal: { Service: "cloudfront.amazonaws.com" },
            Condition: { StringEquals: { "AWS:SourceArn": Match.anyValue() } },
          }),
        ]),
      },
    });
  });

  it("reads the bucket through origin access control (no OAI, no public website)", () => {
    s.template.resourceCountIs("AWS::CloudFront::OriginAccessControl", 1);
    s.template.hasResourceProperties("AWS::CloudFront::OriginAccessControl", {
      OriginAccessControlConfig: {
        OriginAccessControlOriginType: "s3",
        SigningBehavior: "always",
        SigningProtocol: "sigv4",
      },
    });
    s.template.resourceCountIs("AWS::CloudFront::CloudFrontOriginAccessIdentity", 0);
    const s3Origin = config.Origins.find((o) => o.OriginAccessControlId !== undefined);
    expect(s3Origin).toBeDefined();
    expect(config.DefaultCacheBehavior.TargetOriginId).toBe(s3Origin!.Id);
    expect(config.DefaultRootObject).toBe("index.html");
  });

  it("serves the console cached and the API paths uncached with all viewer headers but Host", () => {
    expect(config.DefaultCacheBehavior).toMatchObject({
      CachePolicyId: CACHING_OPTIMIZED,
      ViewerProtocolPolicy: "redirect-to-https",
      AllowedMethods: ["GET", "HEAD"],
    });
    const apiOrigin = config.Origins.find((o) => o.CustomOriginConfig !== undefined)!;
    expect(apiOrigin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: "https-only" });
    expect(JSON.stringify(apiOrigin.DomainName)).toContain("execute-api");
    expect(JSON.stringify(apiOrigin.DomainName)).toContain(
      s.stack.getLogicalId(s.stack.api.api.node.defaultChild as never),
    );
    expect(config.CacheBehaviors.map((b) => b.PathPattern).sort()).toEqual([...API_PATH_PATTERNS].sort());
    for (const behavior of config.CacheBehaviors) {
      expect(behavior).toMatchObject({
        TargetOriginId: apiOrigin.Id,
        CachePolicyId: CACHING_DISABLED,
        OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
        ViewerProtocolPolicy: "https-only",
        AllowedMethods: ["GET", "HEAD"],
      });
      expect(behavior.ResponseHeadersPolicyId).toEqual(config.DefaultCacheBehavior.ResponseHeadersPolicyId);
    }
  });

  it("sends security headers and logs access", () => {
    s.template.hasResourceProperties("AWS::CloudFront::ResponseHeadersPolicy", {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: {
          ContentSecurityPolicy: { ContentSecurityPolicy: CONTENT_SECURITY_POLICY, Override: true },
          StrictTransportSecurity: Match.objectLike({ AccessControlMaxAgeSec: 31536000, Override: true }),
          ContentTypeOptions: { Override: true },
          FrameOptions: { FrameOption: "DENY", Override: true },
          ReferrerPolicy: { ReferrerPolicy: "no-referrer", Override: true },
        },
      },
    });
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe-inline");
    expect(config.Logging).toMatchObject({ Prefix: "cloudfront/" });
  });

  it("uploads the console built at synth time and invalidates the distribution", () => {
    s.template.hasResourceProperties("Custom::CDKBucketDeployment", {
      DestinationBucketName: {
        Ref: s.stack.getLogicalId(s.stack.console!.bucket.node.defaultChild as never),
      },
      DistributionPaths: ["/*"],
      Prune: true,
    });
    s.template.hasOutput("ConsoleUrl", Match.anyValue());
  });

  it("passes cdk-nag, every acknowledgement with a reason", () => {
    expect(s.error).toBeUndefined();
    expect(unacknowledged(s.report)).toEqual([]);
  });
});

describe("withConsole unset (the default)", () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synth(JWT);
  });

  it("creates none of the console's resources", () => {
    expect(s.stack.console).toBeUndefined();
    // The stack's other buckets (the audit archive) are not the console's.
    for (const type of CONSOLE_TYPES) {
      expect(Object.keys(s.template.findResources(type)).filter((id) => id.startsWith("Console"))).toEqual(
        [],
      );
    }
    s.template.resourceCountIs("AWS::CloudFront::Distribution", 0);
    expect(Object.keys(s.template.toJSON().Outputs ?? {})).not.toContain("ConsoleUrl");
  });
});

describe("withConsole + consoleDomainName + apiDomainName", () => {
  const CONSOLE_CERT = "arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555";
  const API_CERT = "arn:aws:acm:eu-west-1:123456789012:certificate/66666666-7777-8888-9999-000000000000";
  let s: Synthesized;
  beforeAll(() => {
    s = synth({
      ...JWT,
      withConsole: true,
      consoleDomainName: "logs.example.com",
      consoleCertificateArn: CONSOLE_CERT,
      apiDomainName: "api.logs.example.com",
      apiCertificateArn: API_CERT,
    });
  });

  it("serves the console on its domain with TLSv1.2_2021 and the certificate", () => {
    s.template.hasResourceProperties("AWS::CloudFront::Distribution", {
      DistributionConfig: Match.objectLike({
        Aliases: ["logs.example.com"],
        ViewerCertificate: {
          AcmCertificateArn: CONSOLE_CERT,
          MinimumProtocolVersion: "TLSv1.2_2021",
          SslSupportMethod: "sni-only",
        },
      }),
    });
    s.template.hasOutput("ConsoleUrl", { Value: "https://logs.example.com/" });
  });

  it("gives the API its domain with TLS 1.2, disables execute-api, and sends CloudFront there", () => {
    s.template.hasResourceProperties("AWS::ApiGatewayV2::DomainName", {
      DomainName: "api.logs.example.com",
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: API_CERT, SecurityPolicy: "TLS_1_2" })],
    });
    s.template.hasResourceProperties("AWS::ApiGatewayV2::Api", { DisableExecuteApiEndpoint: true });
    s.template.resourceCountIs("AWS::ApiGatewayV2::ApiMapping", 1);
    const [[, distribution]] = resources(s.template, "AWS::CloudFront::Distribution") as [
      [
        string,
        {
          Properties: {
            DistributionConfig: { Origins: { DomainName: unknown; CustomOriginConfig?: unknown }[] };
          };
        },
      ],
    ];
    const apiOrigin = distribution.Properties.DistributionConfig.Origins.find((o) => o.CustomOriginConfig)!;
    expect(apiOrigin.DomainName).toBe("api.logs.example.com");
    expect(apiOrigin.CustomOriginConfig).toMatchObject({ OriginSSLProtocols: ["TLSv1.2"] });
    s.template.hasOutput("ApiUrl", { Value: "https://api.logs.example.com/" });
    s.template.hasOutput("ApiDnsTarget", Match.anyValue());
  });

  it("no longer warns that execute-api stays reachable, and passes cdk-nag without the CFR4 acknowledgement", () => {
    const warnings = s.stack.console!.node.metadata.filter((m) => m.type === "aws:cdk:warning");
    expect(warnings.map((w) => String(w.data)).some((w) => w.includes("execute-api"))).toBe(false);
    expect(s.error).toBeUndefined();
    expect(unacknowledged(s.report)).toEqual([]);
  });
});

describe("withConsole without apiDomainName", () => {
  it("keeps execute-api enabled (CloudFront's origin) and says so at synth", () => {
    const s = synth({ ...JWT, withConsole: true });
    s.template.hasResourceProperties("AWS::ApiGatewayV2::Api", { DisableExecuteApiEndpoint: false });
    const warnings = s.stack.console!.node.metadata.filter((m) => m.type === "aws:cdk:warning");
    expect(
      warnings.map((w) => String(w.data)).some((w) => w.includes("execute-api endpoint stays reachable")),
    ).toBe(true);
  });

  it.each([
    [{ consoleDomainName: "logs.example.com" }, /consoleCertificateArn/],
    [
      {
        consoleDomainName: "logs.example.com",
        consoleCertificateArn:
          "arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555",
        withConsole: true,
      },
      /us-east-1/,
    ],
    [
      {
        consoleDomainName: "logs.example.com",
        consoleCertificateArn:
          "arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555",
      },
      /withConsole/,
    ],
    [
      { apiDomainName: "not a domain", apiCertificateArn: "arn:aws:acm:eu-west-1:1:certificate/x" },
      /apiDomainName/,
    ],
  ])("rejects %j", (context, message) => {
    expect(() => synth({ ...JWT, ...context })).toThrow(message);
  });
});
