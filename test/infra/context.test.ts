/**
 * Context switches: each changes what it should and nothing else, and bad values fail synth with a
 * message naming the context key.
 */
import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../infra/constructs/http-api.ts";
import { FUNCTIONS } from "../../infra/functions.ts";
import { ENV } from "../../lib/config.ts";
import { resources, type Synthesized, synth, unacknowledged } from "./synth.ts";

const VPC = {
  vpcId: "vpc-0123456789abcdef0",
  subnetIds: "subnet-0aaaaaaaaaaaaaaaa,subnet-0bbbbbbbbbbbbbbbb,subnet-0cccccccccccccccc",
  routeTableIds: ["rtb-0aaaaaaaaaaaaaaaa", "rtb-0bbbbbbbbbbbbbbbb", "rtb-0cccccccccccccccc"],
};

describe("authorizer=jwt, runtimeLogsEnabled=false, limits", () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synth({
      authorizer: "jwt",
      jwtIssuer: "https://issuer.example.com/",
      jwtAudience: "runtime-logs,occ",
      runtimeLogsEnabled: "false",
      limits: JSON.stringify({ burst: 20, agentInFlight: 32 }),
      withConsole: true,
    });
  });

  it("creates one JWT authorizer with the issuer and audiences", () => {
    s.template.resourceCountIs("AWS::ApiGatewayV2::Authorizer", 1);
    s.template.hasResourceProperties("AWS::ApiGatewayV2::Authorizer", {
      AuthorizerType: "JWT",
      IdentitySource: ["$request.header.Authorization"],
      JwtConfiguration: { Issuer: "https://issuer.example.com/", Audience: ["runtime-logs", "occ"] },
    });
  });

  it("puts the JWT authorizer on every route but /health", () => {
    const authorizerId = Object.keys(s.template.findResources("AWS::ApiGatewayV2::Authorizer"))[0];
    for (const route of ROUTES) {
      s.template.hasResourceProperties("AWS::ApiGatewayV2::Route", {
        RouteKey: route.routeKey,
        AuthorizationType: route.public ? "NONE" : "JWT",
        AuthorizerId: route.public ? Match.absent() : { Ref: authorizerId },
      });
    }
  });

  it("turns the feature off through the environment and applies the limits", () => {
    const health = s.stack.getLogicalId(s.stack.functions.health.fn.node.defaultChild as never);
    const archive = s.stack.getLogicalId(s.stack.functions["audit-archive"].fn.node.defaultChild as never);
    for (const [id, fn] of serviceFunctions(s.template)) {
      const vars = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      // The archive consumer archives whether or not the feature is on: it knows only its bucket.
      if (id === archive) {
        expect(Object.keys(vars).sort()).toEqual([ENV.auditArchiveBucket, "NODE_OPTIONS"].sort());
        continue;
      }
      expect(vars[ENV.enabled]).toBe("false");
      // `/health` reports the switch and reads nothing else.
      if (id === health) {
        expect(Object.keys(vars).sort()).toEqual([ENV.enabled, "NODE_OPTIONS"].sort());
        continue;
      }
      expect(vars[ENV.limitBurst]).toBe("20");
      expect(vars[ENV.limitAgentInFlight]).toBe("32");
      expect(vars[ENV.limitRatePerSecond]).toBeUndefined();
    }
  });

  it("still routes everything (the functions answer 501 themselves)", () => {
    s.template.resourceCountIs("AWS::ApiGatewayV2::Route", ROUTES.length);
    expect(serviceFunctions(s.template)).toHaveLength(FUNCTIONS.length);
  });

  it("passes cdk-nag", () => {
    expect(s.error).toBeUndefined();
    expect(unacknowledged(s.report)).toEqual([]);
  });
});

/** The service's functions: with the console on, CDK adds its own upload function (BucketDeployment). */
const serviceFunctions = (template: Parameters<typeof resources>[0]) =>
  resources(template, "AWS::Lambda::Function").filter(([id]) => !id.startsWith("CustomCDKBucketDeployment"));

describe("vpcId + subnetIds + routeTableIds", () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synth(VPC);
  });

  it("places every function in the subnets with the service security group", () => {
    const sgId = s.stack.getLogicalId(s.stack.network!.functionSecurityGroup.node.defaultChild as never);
    const archive = s.stack.getLogicalId(s.stack.functions["audit-archive"].fn.node.defaultChild as never);
    for (const [id, fn] of resources(s.template, "AWS::Lambda::Function")) {
      // The archive consumer talks to S3 and the stream only: it stays outside the VPC.
      if (id === archive) {
        expect(fn.Properties.VpcConfig).toBeUndefined();
        continue;
      }
      expect(fn.Properties.VpcConfig).toEqual({
        SubnetIds: VPC.subnetIds.split(","),
        SecurityGroupIds: [{ "Fn::GetAtt": [sgId, "GroupId"] }],
      });
    }
  });

  it("lets the functions out on HTTPS only", () => {
    const sgId = s.stack.getLogicalId(s.stack.network!.functionSecurityGroup.node.defaultChild as never);
    const sg = s.template.toJSON().Resources[sgId].Properties;
    expect(sg.VpcId).toBe(VPC.vpcId);
    expect(sg.SecurityGroupEgress).toEqual([
      expect.objectContaining({ CidrIp: "0.0.0.0/0", IpProtocol: "tcp", FromPort: 443, ToPort: 443 }),
    ]);
    expect(sg.SecurityGroupIngress).toBeUndefined();
  });

  it("adds a DynamoDB gateway endpoint on the route tables and STS/Secrets Manager interface endpoints", () => {
    s.template.hasResourceProperties("AWS::EC2::VPCEndpoint", {
      VpcEndpointType: "Gateway",
      VpcId: VPC.vpcId,
      ServiceName: Match.objectLike({ "Fn::Join": ["", Match.arrayWith([".dynamodb"])] }),
      RouteTableIds: VPC.routeTableIds,
    });
    for (const service of ["secretsmanager", "sts"]) {
      s.template.hasResourceProperties("AWS::EC2::VPCEndpoint", {
        VpcEndpointType: "Interface",
        VpcId: VPC.vpcId,
        ServiceName: Match.objectLike({ "Fn::Join": ["", Match.arrayWith([`.${service}`])] }),
        SubnetIds: VPC.subnetIds.split(","),
        PrivateDnsEnabled: true,
      });
    }
    s.template.resourceCountIs("AWS::EC2::VPCEndpoint", 3);
  });

  it("lets only the function security group reach the interface endpoints", () => {
    const fnSg = s.stack.getLogicalId(s.stack.network!.functionSecurityGroup.node.defaultChild as never);
    const ingress = resources(s.template, "AWS::EC2::SecurityGroupIngress");
    expect(ingress).toHaveLength(1);
    expect(ingress[0]![1].Properties).toMatchObject({
      IpProtocol: "tcp",
      FromPort: 443,
      ToPort: 443,
      SourceSecurityGroupId: { "Fn::GetAtt": [fnSg, "GroupId"] },
    });
  });

  it("imports the VPC without lookups (synth stays offline)", () => {
    const missing = s.stack.node.metadata.filter((m) => m.type === "aws:cdk:missing-context");
    expect(missing).toEqual([]);
    expect(JSON.stringify(s.template.toJSON())).not.toContain("DUMMY");
  });

  it("passes cdk-nag", () => {
    expect(s.error).toBeUndefined();
    expect(unacknowledged(s.report)).toEqual([]);
  });
});

describe("vpc + openshellPorts: sandbox readers reach the OpenShell gateways", () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synth({ ...VPC, openshellPorts: "8443,443" });
  });

  it("adds egress on the gateway ports to logs, download and the probe only", () => {
    const network = s.stack.network!;
    const sandboxSg = s.stack.getLogicalId(network.sandboxSecurityGroup!.node.defaultChild as never);
    const fnSg = s.stack.getLogicalId(network.functionSecurityGroup.node.defaultChild as never);
    const sg = s.template.toJSON().Resources[sandboxSg].Properties;
    // 443 is already open to every function; only the extra port is added.
    expect(sg.SecurityGroupEgress).toEqual([
      expect.objectContaining({ CidrIp: "0.0.0.0/0", IpProtocol: "tcp", FromPort: 8443, ToPort: 8443 }),
    ]);
    for (const [name, fn] of Object.entries(s.stack.functions)) {
      if (name === "audit-archive") continue;
      const props =
        s.template.toJSON().Resources[s.stack.getLogicalId(fn.fn.node.defaultChild as never)].Properties;
      const groups = props.VpcConfig.SecurityGroupIds.map(
        (g: { "Fn::GetAtt": string[] }) => g["Fn::GetAtt"][0],
      );
      const readsSandboxes = ["logs", "download", "health-probe"].includes(name);
      expect(groups, name).toEqual(readsSandboxes ? [fnSg, sandboxSg] : [fnSg]);
    }
  });

  it("passes cdk-nag", () => {
    expect(s.error).toBeUndefined();
    expect(unacknowledged(s.report)).toEqual([]);
  });
});

describe("bad context fails synth with the key named", () => {
  it.each([
    [{ authorizer: "jwt" }, /jwtIssuer.*jwtAudience/],
    [{ authorizer: "jwt", jwtIssuer: "https://issuer.example.com/" }, /jwtAudience/],
    [{ authorizer: "jwt", jwtIssuer: "http://insecure.example.com/", jwtAudience: "a" }, /jwtIssuer/],
    [{ authorizer: "cognito" }, /"authorizer"/],
    [{ runtimeLogsEnabled: "yes" }, /runtimeLogsEnabled/],
    [{ vpcId: VPC.vpcId }, /subnetIds/],
    [{ subnetIds: VPC.subnetIds }, /vpcId/],
    [{ vpcId: "vpc-1", subnetIds: VPC.subnetIds }, /vpcId/],
    [{ limits: '{"burst": -1}' }, /limits\.burst/],
    [{ limits: '{"bogus": 1}' }, /limits/],
    [{ limits: "{burst" }, /"limits" is not a valid JSON object/],
    [{ reservedConcurrency: "[1]" }, /"reservedConcurrency" must be an object of function name to count/],
    [{ openshellPorts: "8443" }, /openshellPorts.*vpcId|vpcId/],
    [{ ...VPC, openshellPorts: "70000" }, /openshellPorts/],
    [{ ...VPC, openshellPorts: "http" }, /openshellPorts/],
  ])("%j", (context, message) => {
    expect(() => synth(context)).toThrow(message);
  });
});
