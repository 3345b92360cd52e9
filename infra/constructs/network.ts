/**
 * Optional VPC placement: the functions run in the operator's private subnets (to reach private EKS
 * endpoints and OpenShell gateways), with endpoints for DynamoDB (gateway), Secrets Manager and STS (interface) so that no
 * NAT gateway is needed. The VPC is imported from its attributes, never looked up, so synth stays
 * offline.
 */
import { Annotations, Fn, Stack } from "aws-cdk-lib";
import {
  GatewayVpcEndpoint,
  GatewayVpcEndpointAwsService,
  InterfaceVpcEndpoint,
  InterfaceVpcEndpointAwsService,
  type ISubnet,
  type IVpc,
  Peer,
  Port,
  SecurityGroup,
  Subnet,
  Vpc,
} from "aws-cdk-lib/aws-ec2";
import { Construct } from "constructs";
import type { VpcSettings } from "../settings.ts";
import type { NetworkPlacement } from "./service-function.ts";

export class ServiceNetwork extends Construct {
  readonly vpc: IVpc;
  readonly subnets: ISubnet[];
  /** The functions' security group: HTTPS out only (clusters, AWS endpoints). */
  readonly functionSecurityGroup: SecurityGroup;
  readonly endpointSecurityGroup: SecurityGroup;
  /**
   * Added to the functions that read sandboxes when `openshellPorts` names ports besides 443: egress
   * to the OpenShell gateways on those ports only, so the other functions keep HTTPS alone.
   */
  readonly sandboxSecurityGroup: SecurityGroup | undefined;

  constructor(scope: Construct, id: string, settings: VpcSettings) {
    super(scope, id);
    // Stack.availabilityZones, generalised to one token per subnet: the i-th AZ of the region. Only
    // CDK's subnet model uses it; the template names subnets by ID.
    const availabilityZones = settings.subnetIds.map((_, i) =>
      i < Stack.of(this).availabilityZones.length
        ? (Stack.of(this).availabilityZones[i] as string)
        : Fn.select(i, Fn.getAzs()),
    );
    this.vpc = Vpc.fromVpcAttributes(this, "Vpc", {
      vpcId: settings.vpcId,
      availabilityZones,
      privateSubnetIds: [...settings.subnetIds],
      ...(settings.routeTableIds.length === settings.subnetIds.length
        ? { privateSubnetRouteTableIds: [...settings.routeTableIds] }
        : {}),
    });
    this.subnets = settings.subnetIds.map((subnetId, i) =>
      Subnet.fromSubnetAttributes(this, `Subnet${i}`, {
        subnetId,
        availabilityZone: availabilityZones[i] as string,
        ...(settings.routeTableIds[i] ? { routeTableId: settings.routeTableIds[i] } : {}),
      }),
    );

    this.functionSecurityGroup = new SecurityGroup(this, "FunctionSecurityGroup", {
      vpc: this.vpc,
      description: "runtime-logs functions: HTTPS to clusters and AWS endpoints",
      allowAllOutbound: false,
    });
    this.functionSecurityGroup.addEgressRule(
      Peer.anyIpv4(),
      Port.tcp(443),
      "HTTPS to Kubernetes APIs and AWS",
    );
    if (settings.openshellPorts.length > 0) {
      const sandbox = new SecurityGroup(this, "SandboxSecurityGroup", {
        vpc: this.vpc,
        description: "runtime-logs sandbox readers: gRPC to OpenShell gateways",
        allowAllOutbound: false,
      });
      for (const port of settings.openshellPorts) {
        sandbox.addEgressRule(Peer.anyIpv4(), Port.tcp(port), `OpenShell gateways on ${port}`);
      }
      this.sandboxSecurityGroup = sandbox;
    } else {
      this.sandboxSecurityGroup = undefined;
    }
    this.endpointSecurityGroup = new SecurityGroup(this, "EndpointSecurityGroup", {
      vpc: this.vpc,
      description: "runtime-logs interface endpoints: HTTPS from the functions",
      allowAllOutbound: false,
    });
    this.endpointSecurityGroup.addIngressRule(
      this.functionSecurityGroup,
      Port.tcp(443),
      "HTTPS from runtime-logs functions",
    );

    // Gateway endpoints attach to route tables; without `routeTableIds` the endpoint is created
    // unattached and synth warns (the operator adds the routes or passes the IDs).
    const dynamoDb = new GatewayVpcEndpoint(this, "DynamoDbEndpoint", {
      vpc: this.vpc,
      service: GatewayVpcEndpointAwsService.DYNAMODB,
      subnets: settings.routeTableIds.length > 0 ? [{ subnets: this.subnets }] : [],
    });
    if (settings.routeTableIds.length !== settings.subnetIds.length) {
      Annotations.of(dynamoDb).addWarningV2(
        "runtime-logs:routeTableIds",
        "Context routeTableIds should list the route table of each subnet in subnetIds (same order): " +
          "the DynamoDB gateway endpoint is attached to those route tables only.",
      );
    }
    for (const [name, service] of [
      ["SecretsManagerEndpoint", InterfaceVpcEndpointAwsService.SECRETS_MANAGER],
      ["StsEndpoint", InterfaceVpcEndpointAwsService.STS],
    ] as const) {
      new InterfaceVpcEndpoint(this, name, {
        vpc: this.vpc,
        service,
        subnets: { subnets: this.subnets },
        securityGroups: [this.endpointSecurityGroup],
        privateDnsEnabled: true,
        open: false,
      });
    }
  }

  /** Where a function runs; `readsSandboxes` adds the OpenShell egress group when there is one. */
  placement(readsSandboxes: boolean): NetworkPlacement {
    return {
      vpc: this.vpc,
      subnets: { subnets: this.subnets },
      securityGroups: [
        this.functionSecurityGroup,
        ...(readsSandboxes && this.sandboxSecurityGroup ? [this.sandboxSecurityGroup] : []),
      ],
    };
  }
}
