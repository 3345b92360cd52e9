/**
 * The web console behind CloudFront (`withConsole`): a private S3 bucket (public access blocked,
 * SSL enforced, S3-managed encryption) read through origin access control, the console built by
 * esbuild at synth time and uploaded by a BucketDeployment, and the HTTP API on the same
 * distribution under its own paths (caching off, every viewer header but Host forwarded), so the
 * console calls the API same-origin and no CORS is needed. Access logs go to a log bucket.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import {
  AllowedMethods,
  type BehaviorOptions,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { HttpOrigin, S3BucketOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { BucketDeployment, Source } from "aws-cdk-lib/aws-s3-deployment";
import { Construct, type IConstruct } from "constructs";
import { buildConsole } from "../../console/build.ts";
import type { DomainSettings } from "../settings.ts";
import { accessLogBucket, bucketRef } from "./access-logs.ts";

/** The API's paths on the distribution (docs/api.md § Routes); everything else is the console. */
export const API_PATH_PATTERNS = ["/namespaces/*", "/health"] as const;

/** What the console may load: its own files and same-origin API calls, nothing inline. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export interface ConsoleSiteProps {
  /**
   * The HTTP API's host (its `$default` stage serves the routes at the root): the execute-api
   * endpoint, or the API's own domain when it has one (then the only way in).
   */
  apiHost: string;
  /** Whether the API's `execute-api` endpoint is disabled (it has its own domain). */
  apiEndpointDisabled: boolean;
  /** The console's own domain and us-east-1 certificate: TLS 1.2 (2021 policy) or later only. */
  domain?: DomainSettings | undefined;
  /** The API's authorizer: the console signs in with a JWT, so `iam` leaves it unable to call. */
  authorizer: "jwt" | "iam";
  /** A built console to upload (tests); default: built now from `console/` by esbuild. */
  siteDir?: string;
}

const rule = (id: string) => `AwsSolutions::${id}`;

export class ConsoleSite extends Construct {
  readonly bucket: Bucket;
  readonly logBucket: Bucket;
  readonly distribution: Distribution;
  readonly deployment: BucketDeployment;
  readonly securityHeaders: ResponseHeadersPolicy;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    const stack = Stack.of(this);
    if (props.authorizer === "iam") {
      Annotations.of(this).addWarningV2(
        "runtime-logs:console-needs-jwt",
        "withConsole: the console signs requests with a bearer token; deploy with authorizer=jwt, " +
          "or its API calls are rejected by the IAM authorizer.",
      );
    }

    // CloudFront standard logs need ACLs on the target bucket (object writer ownership).
    this.logBucket = accessLogBucket(this, 90);
    this.bucket = new Bucket(this, "Site", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: bucketRef(this.logBucket),
      serverAccessLogsPrefix: "s3/",
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.securityHeaders = new ResponseHeadersPolicy(this, "SecurityHeaders", {
      comment: "runtime-logs console: strict CSP, HSTS, no framing, no referrer",
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: CONTENT_SECURITY_POLICY, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });

    const apiBehavior: BehaviorOptions = {
      origin: new HttpOrigin(props.apiHost, {
        protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      }),
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      responseHeadersPolicy: this.securityHeaders,
    };

    this.distribution = new Distribution(this, "Distribution", {
      comment: "runtime-logs console and API",
      ...(props.domain
        ? {
            domainNames: [props.domain.domainName],
            certificate: Certificate.fromCertificateArn(this, "Certificate", props.domain.certificateArn),
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      defaultRootObject: "index.html",
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: bucketRef(this.logBucket),
      logFilePrefix: "cloudfront/",
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(bucketRef(this.bucket)),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.securityHeaders,
        compress: true,
      },
      additionalBehaviors: Object.fromEntries(API_PATH_PATTERNS.map((p) => [p, apiBehavior])),
    });

    const siteDir = props.siteDir ?? buildSite();
    this.deployment = new BucketDeployment(this, "Upload", {
      sources: [Source.asset(siteDir)],
      destinationBucket: bucketRef(this.bucket),
      distribution: this.distribution,
      distributionPaths: ["/*"],
      prune: true,
      memoryLimit: 256,
    });

    new CfnOutput(stack, "ConsoleUrl", {
      description: "The web console (and the API under the same origin)",
      value: `https://${props.domain?.domainName ?? this.distribution.distributionDomainName}/`,
    });
    if (props.domain) {
      new CfnOutput(stack, "ConsoleDnsTarget", {
        description: `Point ${props.domain.domainName} (CNAME or alias) at this CloudFront name`,
        value: this.distribution.distributionDomainName,
      });
    }
    if (!props.apiEndpointDisabled) {
      Annotations.of(this).addWarningV2(
        "runtime-logs:execute-api-reachable",
        "withConsole: the API's execute-api endpoint stays reachable beside CloudFront. Pass " +
          "apiDomainName and apiCertificateArn to give the API its own domain and disable that endpoint.",
      );
    }
    this.acknowledge(props.domain !== undefined);
  }

  /** cdk-nag findings kept on purpose, each on the narrowest construct, with the reason. */
  private acknowledge(customDomain: boolean): void {
    const ack = (construct: IConstruct, id: string, reason: string) =>
      Validations.of(construct).acknowledge({ id: rule(id), reason });
    ack(
      this.logBucket,
      "AwsSolutions-S1",
      "This is the access-log bucket itself (for the site bucket and CloudFront); logging it into itself would loop.",
    );
    ack(
      this.distribution,
      "AwsSolutions-CFR1",
      "Operators sign in from wherever they work; access is decided per request by the API's authorizer and grants, not by geography.",
    );
    ack(
      this.distribution,
      "AwsSolutions-CFR2",
      "No WAF by default: the API behind it is authenticated, throttled at the stage and rate-limited per principal (state.md); attach a web ACL per account if required.",
    );
    if (!customDomain) {
      ack(
        this.distribution,
        "AwsSolutions-CFR4",
        "Without consoleDomainName the default *.cloudfront.net certificate fixes the viewer TLS policy; pass consoleDomainName and consoleCertificateArn for TLSv1.2_2021 or later only.",
      );
    }
    // The BucketDeployment's provider: an AWS-maintained Lambda that copies the asset into the bucket.
    const handler = this.deploymentHandler();
    if (handler) {
      ack(
        handler,
        "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
        "The CDK BucketDeployment provider writes its own CloudWatch logs with this AWS-managed policy.",
      );
      const site = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as never);
      const granted = [
        "Action::s3:GetObject*",
        "Action::s3:GetBucket*",
        "Action::s3:List*",
        "Action::s3:DeleteObject*",
        "Action::s3:Abort*",
        `Resource::<${site}.Arn>/*`,
        "Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*",
        "Resource::*",
      ];
      for (const finding of granted) {
        ack(
          handler,
          `AwsSolutions-IAM5[${finding}]`,
          "The CDK BucketDeployment provider's grant: read its staging asset, write and prune the console " +
            "bucket's objects, and create CloudFront invalidations (which take no resource ARN).",
        );
      }
      ack(
        handler,
        "AwsSolutions-L1",
        "The CDK BucketDeployment provider's runtime is chosen by aws-cdk-lib and moves with it.",
      );
    }
  }

  /** The singleton provider the BucketDeployment adds at stack level (its id is CDK's). */
  private deploymentHandler(): IConstruct | undefined {
    return Stack.of(this).node.children.find((c) => c.node.id.startsWith("Custom::CDKBucketDeployment"));
  }
}

function buildSite(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "runtime-logs-console-")), "site");
  buildConsole(dir);
  return dir;
}
